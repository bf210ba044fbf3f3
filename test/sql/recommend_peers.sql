-- recommend() beside two common tuning tools, PGTune and timescaledb-tune,
-- on six machines, so that every disagreement is visible and deliberate.
-- The peers' values are computed here from their formulas as the
-- project's research notes record them (PGTune 2026, timescaledb-tune
-- 0.19), in MB; RAM is the whole machine's, N the connections asked for,
-- C the CPUs, and the data set is 10GB as passed to recommend():
--   PGTune:           shared_buffers RAM/4 (desktop RAM/16);
--                     effective_cache_size RAM*3/4 (desktop RAM/4);
--                     maintenance_work_mem RAM/16 (dw RAM/8), at most 8GB
--                       (2GB, and no data-size factor below, before April 2026);
--                     work_mem (RAM - shared_buffers) / (3 (N + W)), W = C from
--                       4 CPUs on, else 8; x 1/2 for dw and mixed, x 1/6 for
--                       desktop; x 1.3 when the data is smaller than RAM,
--                       x 0.9 when larger than 3 x RAM; at least 4MB;
--                     max_wal_size web/mixed 4GB, oltp 8GB, dw 16GB, desktop 2GB.
--   timescaledb-tune: shared_buffers RAM/4; effective_cache_size RAM*3/4;
--                     maintenance_work_mem RAM/8, at most 2047MB;
--                     work_mem RAM in GB x 400MB / N / round(C/2), at least 64kB;
--                     max_wal_size 1GB when the WAL disk's size is not given.
-- Where pgbench_lab differs, its reason column says why: it keeps an OS
-- reserve out of RAM, never goes below PostgreSQL's defaults unless the
-- memory forces it, counts shared memory, maintenance, autovacuum and each
-- backend's own memory before work_mem, and counts every connection and
-- parallel worker holding a sort and a hash (x 3) without halving again.
\pset null '-'
CREATE TEMP TABLE machines (machine text, ram_gb numeric, cpus int, conns int, workload text);
INSERT INTO machines VALUES
    ('desktop 1GB/1cpu/20', 1, 1, 20, 'desktop'),
    ('web 4GB/2cpu/200', 4, 2, 200, 'web'),
    ('dw 12GB/4cpu/16', 12, 4, 16, 'dw'),
    ('mixed 16GB/4cpu/100', 16, 4, 100, 'mixed'),
    ('oltp 64GB/16cpu/300', 64, 16, 300, 'oltp'),
    ('dw 256GB/64cpu/40', 256, 64, 40, 'dw');

CREATE TEMP VIEW peers AS
SELECT m.machine, s.setting, s.pgtune, s.tstune
  FROM machines m,
       LATERAL (SELECT m.ram_gb * 1024 AS ram,
                       CASE WHEN m.workload = 'desktop' THEN m.ram_gb * 1024 / 16
                            ELSE m.ram_gb * 1024 / 4 END AS sb,
                       CASE WHEN m.cpus >= 4 THEN m.cpus ELSE 8 END AS w) AS v,
       LATERAL (VALUES
           ('shared_buffers', floor(v.sb), floor(v.ram / 4)),
           ('effective_cache_size',
            floor(CASE WHEN m.workload = 'desktop' THEN v.ram / 4 ELSE v.ram * 3 / 4 END),
            floor(v.ram * 3 / 4)),
           ('maintenance_work_mem',
            floor(least(CASE WHEN m.workload = 'dw' THEN v.ram / 8 ELSE v.ram / 16 END, 8192)),
            floor(least(v.ram / 8, 2047))),
           ('work_mem',
            round(greatest((v.ram - v.sb) / (3 * (m.conns + v.w))
                           / CASE m.workload WHEN 'dw' THEN 2 WHEN 'mixed' THEN 2
                                             WHEN 'desktop' THEN 6 ELSE 1 END
                           * CASE WHEN 10 < m.ram_gb THEN 1.3
                                  WHEN 10 > 3 * m.ram_gb THEN 0.9 ELSE 1 END, 4), 1),
            round(greatest(m.ram_gb * 400 / m.conns / greatest(round(m.cpus / 2.0), 1), 0.0625), 1)),
           ('max_wal_size',
            CASE m.workload WHEN 'oltp' THEN 8192 WHEN 'dw' THEN 16384
                            WHEN 'desktop' THEN 2048 ELSE 4096 END::numeric,
            1024)) AS s(setting, pgtune, tstune);

SELECT p.machine, p.setting,
       round(pg_catalog.pg_size_bytes(r.recommended) / 1048576.0, 1) AS pgbench_lab_mb,
       p.pgtune AS pgtune_mb, p.tstune AS tstune_mb
  FROM peers p
  JOIN machines m USING (machine)
  CROSS JOIN LATERAL pgbench_lab.recommend(ram => m.ram_gb || 'GB', cpus => m.cpus,
                                           max_connections => m.conns, workload => m.workload,
                                           storage => 'ssd', os => 'linux', data_size => '10GB') r
 WHERE r.name = p.setting
 ORDER BY m.ram_gb, p.setting;

-- The data-warehouse machine's work_mem, with its formula and reasoning
SELECT recommended, formula, reason
  FROM pgbench_lab.recommend(ram => '12GB', cpus => 4, max_connections => 16, workload => 'dw',
                             storage => 'ssd', os => 'linux', data_size => '10GB')
 WHERE name = 'work_mem';
