/*-------------------------------------------------------------------------
 *
 * script_funcs.c
 *		The functions of pgbench's expressions that draw random numbers,
 *		hash or permute, and pgbench's seeding of its clients.
 *
 * Each draws exactly what pgbench draws, from the same generator
 * (PostgreSQL's pg_prng, xoroshiro128**) in the same order, so that a
 * client seeded as pgbench seeds its first client gets pgbench's values:
 *
 * - random(lo, hi): lo + a uniform draw in [0, hi - lo];
 * - random_exponential(lo, hi, p): a uniform u in (0, 1] mapped through
 *   the exponential's inverse distribution function, cut at exp(-p) so
 *   that it stays in [0, 1), then scaled to the range;
 * - random_gaussian(lo, hi, p): Box-Muller's normal draw from two uniform
 *   draws in (0, 1], drawn again until it lies in [-p, p), then scaled;
 * - random_zipfian(lo, hi, s): the rejection method of Devroye's
 *   "Non-Uniform Random Variate Generation" (1986), pp. 550-551, with two
 *   uniform draws per try;
 * - hash_fnv1a and hash_murmur2 (hash): FNV-1a over the value's 8 bytes,
 *   least significant first, and MurmurHash64A of the 8-byte value, each
 *   with the seed mixed into its initial state;
 * - permute(v, size, seed): six rounds of a keyed bijection of [0, size),
 *   whose keys come from a pg_prng seeded with the seed: on each of the
 *   overlapping lower and upper power-of-two halves an odd multiplier, an
 *   xor and a one-bit rotation, then an offset modulo size.
 *
 * The limits are pgbench's: a range of at most INT64_MAX values, a
 * gaussian parameter of at least 2, a zipfian one in [1.001, 1000], an
 * exponential one above 0, a permutation size above 0; and (ours) every
 * parameter finite.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "common/int.h"
#include "port/pg_bitutils.h"
#include "utils/elog.h"

#include "script_expr.h"

#define GAUSSIAN_MIN_PARAM	2.0
#define ZIPFIAN_MIN_PARAM	1.001
#define ZIPFIAN_MAX_PARAM	1000.0

/* FNV-1a's 64-bit prime and offset basis */
#define FNV1A_PRIME			UINT64CONST(0x100000001b3)
#define FNV1A_BASIS			UINT64CONST(0xcbf29ce484222325)
/* MurmurHash64A's multiplier and shift */
#define MURMUR_M			UINT64CONST(0xc6a4a7935bd1e995)
#define MURMUR_R			47

#define HINT_RANGE "random functions take their bounds as (min, max), min <= max, " \
	"with at most 9223372036854775807 values between them."

/* A uniform double in (0, 1]: log() and the transforms need no 0. */
static inline double
uniform_open0(pg_prng_state *prng)
{
	return 1.0 - pg_prng_double(prng);
}

/* lo + x, x in [0, hi - lo + 1) computed in double: wraps as pgbench's does */
static inline int64
scaled(int64 lo, int64 hi, double fraction)
{
	return (int64) ((uint64) lo + (uint64) (int64) ((double) (hi - lo + 1) * fraction));
}

static int64
draw_exponential(pg_prng_state *prng, int64 lo, int64 hi, double param)
{
	double		cut = exp(-param);
	double		u = uniform_open0(prng);

	return scaled(lo, hi, -log(cut + (1.0 - cut) * u) / param);
}

static int64
draw_gaussian(pg_prng_state *prng, int64 lo, int64 hi, double param)
{
	double		z;

	do
	{
		double		u1 = uniform_open0(prng);
		double		u2 = uniform_open0(prng);

		z = sqrt(-2.0 * log(u1)) * sin(2.0 * M_PI * u2);
	} while (z < -param || z >= param);

	return scaled(lo, hi, (z + param) / (2.0 * param));
}

/* Devroye's rejection method for Zipf's law of exponent s > 1 on [1, n]. */
static int64
draw_zipfian(pg_prng_state *prng, int64 lo, int64 hi, double s)
{
	int64		n = hi - lo + 1;
	double		b = pow(2.0, s - 1.0);
	double		x;

	if (n <= 1)
		return lo;
	for (;;)
	{
		double		u = pg_prng_double(prng);
		double		v = pg_prng_double(prng);
		double		t;

		x = floor(pow(u, -1.0 / (s - 1.0)));
		t = pow(1.0 + 1.0 / x, s - 1.0);
		if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n)
			break;
	}
	return (int64) ((uint64) lo - 1 + (uint64) x);
}

static bool
bad_param(ScriptError *error, const char *fmt, double param)
{
	ScriptErrorSet(error, ERRCODE_INVALID_PARAMETER_VALUE,
				   "random_gaussian's parameter is at least 2, random_zipfian's between 1.001 and 1000, random_exponential's above 0.",
				   fmt, param);
	return false;
}

/* The distribution's parameter, checked against pgbench's limits. */
static bool
check_param(ScriptFunc func, double param, ScriptError *error)
{
	if (isnan(param) || isinf(param))
		return bad_param(error, "random parameter must be a finite number (not %g)", param);
	if (func == SF_RANDOM_GAUSSIAN && param < GAUSSIAN_MIN_PARAM)
		return bad_param(error, "gaussian parameter must be at least 2 (not %g)", param);
	if (func == SF_RANDOM_ZIPFIAN &&
		(param < ZIPFIAN_MIN_PARAM || param > ZIPFIAN_MAX_PARAM))
		return bad_param(error, "zipfian parameter must be between 1.001 and 1000 (not %g)", param);
	if (func == SF_RANDOM_EXPONENTIAL && param <= 0.0)
		return bad_param(error, "exponential parameter must be greater than 0 (not %g)", param);
	return true;
}

/*
 * random(lo, hi), random_exponential(lo, hi, p), random_gaussian(lo, hi, p),
 * random_zipfian(lo, hi, s), of non-NULL arguments.
 */
bool
ScriptRandom(ScriptFunc func, const ScriptValue *args, pg_prng_state *prng,
			 ScriptValue *result, ScriptError *error)
{
	int64		lo,
				hi,
				n;
	double		param = 0;

	if (!ScriptToInt(&args[0], &lo, error) || !ScriptToInt(&args[1], &hi, error))
		return false;
	if (lo > hi)
	{
		ScriptErrorSet(error, ERRCODE_INVALID_PARAMETER_VALUE, HINT_RANGE,
					   "empty range given to random: " INT64_FORMAT " > " INT64_FORMAT, lo, hi);
		return false;
	}
	if (pg_sub_s64_overflow(hi, lo, &n) || pg_add_s64_overflow(n, 1, &n))
	{
		ScriptErrorSet(error, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, HINT_RANGE,
					   "random range is too large: " INT64_FORMAT " to " INT64_FORMAT, lo, hi);
		return false;
	}
	if (func != SF_RANDOM &&
		(!ScriptToDouble(&args[2], &param, error) || !check_param(func, param, error)))
		return false;

	result->type = SCRIPT_INT;
	switch (func)
	{
		case SF_RANDOM:
			result->u.i = (int64) ((uint64) lo + pg_prng_uint64_range(prng, 0, (uint64) (hi - lo)));
			break;
		case SF_RANDOM_EXPONENTIAL:
			result->u.i = draw_exponential(prng, lo, hi, param);
			break;
		case SF_RANDOM_GAUSSIAN:
			result->u.i = draw_gaussian(prng, lo, hi, param);
			break;
		default:
			result->u.i = draw_zipfian(prng, lo, hi, param);
			break;
	}
	return true;
}

int64
ScriptHashFnv1a(int64 value, uint64 seed)
{
	uint64		h = FNV1A_BASIS ^ seed;
	uint64		v = (uint64) value;

	for (int i = 0; i < 8; i++, v >>= 8)
	{
		h ^= v & 0xff;
		h *= FNV1A_PRIME;
	}
	return (int64) h;
}

int64
ScriptHashMurmur2(int64 value, uint64 seed)
{
	uint64		h = seed ^ (MURMUR_M * 8);	/* 8: the key's length */
	uint64		k = (uint64) value;

	k *= MURMUR_M;
	k ^= k >> MURMUR_R;
	k *= MURMUR_M;
	h ^= k;
	h *= MURMUR_M;

	h ^= h >> MURMUR_R;
	h *= MURMUR_M;
	h ^= h >> MURMUR_R;
	return (int64) h;
}

/* One keyed step on [0, mask]: multiply by an odd key, xor, rotate by one. */
static inline uint64
mix_half(uint64 x, uint64 mult, uint64 xor, uint64 mask, int bits)
{
	x = ((x * mult) ^ xor) & mask;
	return ((x << 1) & mask) | (x >> (bits - 1));
}

/*
 * permute(value, size, seed): value's image in a pseudorandom permutation
 * of [0, size) chosen by seed; a negative value counts from 2^64, modulo
 * size.
 */
bool
ScriptPermute(int64 value, int64 size, int64 seed, int64 *result, ScriptError *error)
{
	pg_prng_state keys;
	uint64		n = (uint64) size;
	uint64		v;
	uint64		mask;
	int			bits;

	if (size <= 0)
	{
		ScriptErrorSet(error, ERRCODE_INVALID_PARAMETER_VALUE,
					   "permute(value, size [, seed]) permutes [0, size).",
					   "permute size must be greater than 0 (not " INT64_FORMAT ")", size);
		return false;
	}
	if (size < 2)
	{
		*result = 0;
		return true;
	}
	pg_prng_seed(&keys, (uint64) seed);
	v = (uint64) value % n;
	/* the largest power of two not above size, as a mask */
	bits = pg_leftmost_one_pos64(n);
	mask = (((uint64) 1) << bits) - 1;

	for (int round = 0; round < 6; round++)
	{
		uint64		mult,
					xor,
					upper;

		/* the lower half [0, mask] */
		mult = (pg_prng_uint64(&keys) & mask) | 1;
		xor = pg_prng_uint64(&keys) & mask;
		if (v <= mask)
			v = mix_half(v, mult, xor, mask, bits);

		/* the upper half, counted down from size - 1 */
		mult = (pg_prng_uint64(&keys) & mask) | 1;
		xor = pg_prng_uint64(&keys) & mask;
		upper = n - 1 - v;
		if (upper <= mask)
			v = n - 1 - mix_half(upper, mult, xor, mask, bits);

		/* and an offset */
		v = (v + pg_prng_uint64_range(&keys, 0, n - 1)) % n;
	}
	*result = (int64) v;
	return true;
}

/*
 * pgbench's seeding for --random-seed=random_seed: a base generator seeded
 * with it seeds each client's function generator in turn, then draws the
 * default_seed variable's value.
 */
void
ScriptSeedClients(uint64 random_seed, int nclients, pg_prng_state *client_states,
				  int64 *default_seed)
{
	pg_prng_state base;

	pg_prng_seed(&base, random_seed);
	for (int i = 0; i < nclients; i++)
		pg_prng_seed(&client_states[i], pg_prng_uint64(&base));
	*default_seed = (int64) pg_prng_uint64(&base);
}

/* The function generator of client number "client" (from 0) alone. */
void
ScriptSeedClient(uint64 random_seed, int client, pg_prng_state *state)
{
	pg_prng_state base;
	uint64		own = 0;

	pg_prng_seed(&base, random_seed);
	for (int i = 0; i <= client; i++)
		own = pg_prng_uint64(&base);
	pg_prng_seed(state, own);
}

/*
 * The generator that chooses client "client"'s scripts, seeded as pgbench
 * seeds its thread of the same number (each thread one client, -j equal to
 * -c): from the run's base sequence after the clients' generators, the
 * default_seed drawn unless it was given, and three for each thread before
 * (its choice, rate and sampling generators, in that order).
 */
void
ScriptSeedChoose(uint64 random_seed, int nclients, bool default_seed_drawn, int client,
				 pg_prng_state *state)
{
	pg_prng_state base;
	int64		skip = (int64) nclients + (default_seed_drawn ? 1 : 0) + 3 * (int64) client;

	pg_prng_seed(&base, random_seed);
	for (int64 i = 0; i < skip; i++)
		(void) pg_prng_uint64(&base);
	pg_prng_seed(state, pg_prng_uint64(&base));
}
