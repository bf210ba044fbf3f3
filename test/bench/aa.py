"""A/A: how often the verdict calls a difference that is not there.

Started by test/bench/aa.sh, which builds and installs this checkout into
the private server.  One throwaway cluster (pgbench's tables, scale 1)
runs many compare_settings() experiments of two identical settings sets
(A = {}, B = {"work_mem": "4MB"}, PostgreSQL's default, so the two differ
in nothing the workload reads): each trial is one experiment of --rounds
interleaved rounds (A B, B A, ...).  A trial is a false call when its
verdict for B is "faster" or "slower"; the share of false calls should
stay within 1 - confidence (the sign-test interval is exact and
conservative: at 95 % and 6 rounds, 2 in 64 = 3.1 % at most).  It prints
every trial's verdict and interval, the count of false calls, and an exact
binomial upper bound (95 %) for the rate behind them.  Nothing is
asserted: a benchmark, not a test; it says how quiet the machine was.

    test/bench/aa.sh [--trials 40] [--rounds 6] [--duration 1] [--workload select-only]
                     [--confidence 0.95] [--smallest-effect 0.02]

--rounds auto counts the adaptive procedure instead (rounds => 'auto'):
each trial adds rounds at the looks fixed in advance until its verdict is
decided, --budget (seconds, from the experiment's start) ends or 100
rounds have run; the same bound holds (each look's interval at its share
of the confidence).  Each trial's line then says how many rounds it ran
and why it stopped.

    test/bench/aa.sh --trials 40 --rounds auto --duration 0.5 --budget 60 --settle 0
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t"))
sys.path.insert(0, HERE)
from conftest import Cluster  # noqa: E402  (the tests' throwaway clusters)
from bench import quiet_check  # noqa: E402  (the wait for a quiet machine)


def upper_bound(k, n, confidence=0.95):
    """The exact (Clopper-Pearson) one-sided upper bound of a rate with k
    successes in n trials."""
    lo, hi = k / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        tail = sum(math.comb(n, i) * mid ** i * (1 - mid) ** (n - i) for i in range(k + 1))
        if tail > 1 - confidence:
            lo = mid
        else:
            hi = mid
    return hi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--rounds", default="6", help="a count, or auto")
    ap.add_argument("--budget", type=float, default=60, help="seconds, with --rounds auto")
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--workload", default="select-only")
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--smallest-effect", type=float, default=0.02)
    ap.add_argument("--settle", type=float, default=120)
    args = ap.parse_args()
    auto = args.rounds == "auto"
    if not auto:
        args.rounds = int(args.rounds)
    quiet = quiet_check(settle=args.settle)
    c = Cluster("bench-aa", {"shared_buffers": "128MB", "max_worker_processes": "16"})
    try:
        c.start()
        c.run_client("pgbench", "-i", "-s", "1", "-q", "postgres")
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        version = c.scalar("SHOW server_version")
        print(f"== A/A: {args.trials} compare_settings() experiments of two identical sets, "
              f"{'adaptive rounds (budget %g s)' % args.budget if auto else '%d rounds' % args.rounds} of {args.duration:g} s, {args.workload}, 1 client, in-server; "
              f"PostgreSQL {version}, confidence {args.confidence:g}, smallest effect {args.smallest_effect:g}; "
              f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start "
              f"({'quiet' if quiet else 'NOT quiet: these figures are not figures'})", flush=True)
        false_calls = 0
        rounds_run = []
        decided_within = 0
        started = time.monotonic()
        for t in range(1, args.trials + 1):
            with c.connect() as conn:
                eid = conn.execute(
                    "CALL pgbench_lab.compare_settings(%s, ARRAY['{}', '{\"work_mem\": \"4MB\"}']::jsonb[], "
                    "duration => make_interval(secs => %s), rounds => %s::pgbench_lab.rounds, "
                    "smallest_effect => %s, confidence => %s"
                    + (", budget => make_interval(secs => %s))" if auto else ")"),
                    (args.workload, args.duration, str(args.rounds), args.smallest_effect,
                     args.confidence) + ((args.budget,) if auto else ())).fetchone()[0]
            verdict, decided, ratio, low, high, coverage, rounds = c.sql(
                "SELECT verdict, decided, ratio_median, ratio_low, ratio_high, coverage, rounds "
                "FROM pgbench_lab.settings_ratios(%s) WHERE variant = 2", (eid,))[0]
            rounds_run.append(rounds)
            stop = (" " + c.scalar("SELECT pgbench_lab_internal.rounds_stop(%s)", (eid,))) if auto else ""
            false_calls += verdict in ("faster", "slower")
            decided_within += bool(decided) and verdict == "no difference detectable"
            print(f"  trial {t:3d}: ×{ratio:.3f} ({coverage * 100:.1f} % interval ×{low:.3f} to ×{high:.3f}) "
                  f"{verdict}{' (decided)' if decided else ''}, {rounds} rounds;{stop}", flush=True)
        n = args.trials
        print(f"== {false_calls} of {n} A/A trials called a difference ({100 * false_calls / n:.1f} %; "
              f"exact 95 % upper bound of the rate {100 * upper_bound(false_calls, n):.1f} %), "
              f"against at most {100 * (1 - args.confidence):.1f} % by design; "
              f"{decided_within} decided 'no difference' within ±{100 * args.smallest_effect:g} %; "
              f"rounds per trial {min(rounds_run)} to {max(rounds_run)} (median {sorted(rounds_run)[n // 2]}); "
              f"{time.monotonic() - started:.0f} s; load {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end",
              flush=True)
    finally:
        c.destroy()


if __name__ == "__main__":
    main()
