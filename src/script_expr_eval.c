/*-------------------------------------------------------------------------
 *
 * script_expr_eval.c
 *		Evaluation of pgbench's \set expressions.
 *
 * Evaluation walks the tree that script_expr.c built, with every value on
 * the stack: nothing is allocated and nothing throws, so the interpreter
 * can run it per transaction and fail a transaction with the ScriptError
 * it returns, as pgbench aborts a client.  The rules are pgbench's:
 *
 * - a function of a NULL argument is NULL (but IS and debug()), once every
 *   argument has been evaluated, so "NULL + 1/0" is still an error;
 * - AND and OR are lazy and want booleans: a NULL first operand is NULL
 *   whatever the second; CASE takes any value as a condition (non-zero
 *   numbers are true);
 * - arithmetic and comparisons are in double if an operand is a double,
 *   else in int64, where an overflow is an error (PostgreSQL's checked
 *   helpers), as is a division or modulo by zero; % and mod() are always
 *   integer (a double is rounded to the nearest integer, ties to even, as
 *   int() does); x % -1 is 0 and INT64_MIN / -1 an error;
 * - a boolean is never a number, nor a number a boolean, except as a
 *   condition: "true = true" is an error, as in pgbench;
 * - shifts take their count modulo 64, which is what pgbench's C shift
 *   does on x86-64 and ARM64, and abs(INT64_MIN) is INT64_MIN, as pgbench
 *   computes it.
 *
 * The values' coercions and text are script_values.c's.
 *
 * Two deliberate differences, where pgbench has no defined result: abs()
 * of a boolean is an error (pgbench reads the boolean's bytes as a
 * double), and the random functions refuse a NaN or infinite parameter
 * (pgbench loops forever on random_zipfian(1, 10, sqrt(-1))).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "common/int.h"
#include "miscadmin.h"
#include "utils/elog.h"

#include "script_expr.h"

static bool eval_node(const ScriptNode *node, const ScriptEvalEnv *env,
					  ScriptValue *result, ScriptError *error);

static inline void
set_int(ScriptValue *v, int64 i)
{
	v->type = SCRIPT_INT;
	v->u.i = i;
}

static inline void
set_double(ScriptValue *v, double d)
{
	v->type = SCRIPT_DOUBLE;
	v->u.d = d;
}

static inline void
set_bool(ScriptValue *v, bool b)
{
	v->type = SCRIPT_BOOL;
	v->u.i = 0;
	v->u.b = b;
}

static inline void
set_null(ScriptValue *v)
{
	v->type = SCRIPT_NULL;
	v->u.i = 0;
}

static bool
to_bool(const ScriptValue *value, bool *result, ScriptError *error)
{
	if (value->type != SCRIPT_BOOL)
	{
		ScriptCoerceError(value, "a boolean", error);
		return false;
	}
	*result = value->u.b;
	return true;
}

static bool
overflow(ScriptError *error, const char *what)
{
	ScriptErrorSet(error, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, SCRIPT_HINT_OVERFLOW,
				   "bigint out of range in %s", what);
	return false;
}

static bool
division_by_zero(ScriptError *error)
{
	ScriptErrorSet(error, ERRCODE_DIVISION_BY_ZERO,
				   "Guard the divisor with CASE WHEN, or divide doubles (1.0 / 0 is Infinity).",
				   "division by zero");
	return false;
}

/* + - * / and the comparisons in double. */
static void
eval_double_arith(ScriptFunc func, double l, double r, ScriptValue *result)
{
	switch (func)
	{
		case SF_ADD:
			set_double(result, l + r);
			break;
		case SF_SUB:
			set_double(result, l - r);
			break;
		case SF_MUL:
			set_double(result, l * r);
			break;
		case SF_DIV:
			set_double(result, l / r);
			break;
		case SF_EQ:
			set_bool(result, l == r);
			break;
		case SF_NE:
			set_bool(result, l != r);
			break;
		case SF_LE:
			set_bool(result, l <= r);
			break;
		default:
			set_bool(result, l < r);
			break;
	}
}

/* + - * / % and the comparisons in int64, overflow checked. */
static bool
eval_int_arith(ScriptFunc func, int64 l, int64 r, ScriptValue *result, ScriptError *error)
{
	int64		res;

	switch (func)
	{
		case SF_ADD:
			if (pg_add_s64_overflow(l, r, &res))
				return overflow(error, "addition");
			break;
		case SF_SUB:
			if (pg_sub_s64_overflow(l, r, &res))
				return overflow(error, "subtraction");
			break;
		case SF_MUL:
			if (pg_mul_s64_overflow(l, r, &res))
				return overflow(error, "multiplication");
			break;
		case SF_DIV:
		case SF_MOD:
			if (r == 0)
				return division_by_zero(error);
			if (r == -1)
			{
				/* the one quotient that overflows; the remainder is 0 */
				if (func == SF_DIV && l == PG_INT64_MIN)
					return overflow(error, "division");
				res = func == SF_DIV ? -l : 0;
			}
			else
				res = func == SF_DIV ? l / r : l % r;
			break;
		default:
			set_bool(result, func == SF_EQ ? l == r : func == SF_NE ? l != r :
					 func == SF_LE ? l <= r : l < r);
			return true;
	}
	set_int(result, res);
	return true;
}

/* + - * / % and the comparisons, of two non-NULL values. */
static bool
eval_arith(ScriptFunc func, const ScriptValue *l, const ScriptValue *r,
		   ScriptValue *result, ScriptError *error)
{
	if ((l->type == SCRIPT_DOUBLE || r->type == SCRIPT_DOUBLE) && func != SF_MOD)
	{
		double		ld,
					rd;

		if (!ScriptToDouble(l, &ld, error) || !ScriptToDouble(r, &rd, error))
			return false;
		eval_double_arith(func, ld, rd, result);
		return true;
	}
	else
	{
		int64		li,
					ri;

		if (!ScriptToInt(l, &li, error) || !ScriptToInt(r, &ri, error))
			return false;
		return eval_int_arith(func, li, ri, result, error);
	}
}

static bool
eval_bitwise(ScriptFunc func, const ScriptValue *l, const ScriptValue *r,
			 ScriptValue *result, ScriptError *error)
{
	int64		li,
				ri;

	if (!ScriptToInt(l, &li, error) || !ScriptToInt(r, &ri, error))
		return false;
	if (func == SF_BITAND)
		set_int(result, li & ri);
	else if (func == SF_BITOR)
		set_int(result, li | ri);
	else if (func == SF_BITXOR)
		set_int(result, li ^ ri);
	else if (func == SF_LSHIFT)
		set_int(result, (int64) ((uint64) li << (ri & 63)));
	else
		set_int(result, li >> (ri & 63));
	return true;
}

/* least() and greatest(): in double if any argument is a double. */
static bool
eval_extremum(ScriptFunc func, const ScriptValue *args, int nargs,
			  ScriptValue *result, ScriptError *error)
{
	bool		in_double = false;

	for (int i = 0; i < nargs; i++)
		in_double |= (args[i].type == SCRIPT_DOUBLE);
	if (in_double)
	{
		double		x,
					d;

		if (!ScriptToDouble(&args[0], &x, error))
			return false;
		for (int i = 1; i < nargs; i++)
		{
			if (!ScriptToDouble(&args[i], &d, error))
				return false;
			x = func == SF_LEAST ? Min(x, d) : Max(x, d);
		}
		set_double(result, x);
	}
	else
	{
		int64		x,
					n;

		if (!ScriptToInt(&args[0], &x, error))
			return false;
		for (int i = 1; i < nargs; i++)
		{
			if (!ScriptToInt(&args[i], &n, error))
				return false;
			x = func == SF_LEAST ? Min(x, n) : Max(x, n);
		}
		set_int(result, x);
	}
	return true;
}

/* debug(): the value in the server log, then the value itself. */
static void
eval_debug(const ScriptValue *value, const ScriptEvalEnv *env)
{
	char		text[64];

	if (value->type == SCRIPT_NULL)
		strlcpy(text, "null", sizeof(text));
	else
	{
		char		formatted[64];

		ScriptValueFormat(value, formatted, sizeof(formatted));
		snprintf(text, sizeof(text), "%s %s",
				 value->type == SCRIPT_BOOL ? "boolean" :
				 value->type == SCRIPT_INT ? "int" : "double", formatted);
	}
	ereport(LOG,
			(errmsg("pgbench_lab script debug(%s): %s",
					env->debug_label ? env->debug_label : "expression", text),
			 errhidestmt(true)));
}

/* Functions of one value. */
static bool
eval_unary(ScriptFunc func, const ScriptValue *a, const ScriptEvalEnv *env,
		   ScriptValue *result, ScriptError *error)
{
	double		d;
	int64		i;
	bool		b;

	switch (func)
	{
		case SF_NOT:
			if (!to_bool(a, &b, error))
				return false;
			set_bool(result, !b);
			return true;
		case SF_ABS:
			if (a->type == SCRIPT_INT)
				/* 0 - INT64_MIN wraps to itself, as in pgbench */
				set_int(result, a->u.i < 0 ? (int64) (0 - (uint64) a->u.i) : a->u.i);
			else if (a->type == SCRIPT_DOUBLE)
				set_double(result, a->u.d < 0.0 ? -a->u.d : a->u.d);
			else
				return ScriptCoerceError(a, "a number", error);
			return true;
		case SF_DEBUG:
			eval_debug(a, env);
			*result = *a;
			return true;
		case SF_INT:
			if (!ScriptToInt(a, &i, error))
				return false;
			set_int(result, i);
			return true;
		default:
			if (!ScriptToDouble(a, &d, error))
				return false;
			if (func == SF_SQRT)
				d = sqrt(d);
			else if (func == SF_LN)
				d = log(d);
			else if (func == SF_EXP)
				d = exp(d);
			set_double(result, d);
			return true;
	}
}

/* hash_fnv1a(v, seed), hash_murmur2(v, seed), permute(v, size, seed) */
static bool
eval_hash(ScriptFunc func, const ScriptValue *args, ScriptValue *result, ScriptError *error)
{
	int64		v,
				n,
				seed;

	if (!ScriptToInt(&args[0], &v, error) || !ScriptToInt(&args[1], &n, error))
		return false;
	if (func == SF_HASH_FNV1A)
		set_int(result, ScriptHashFnv1a(v, (uint64) n));
	else if (func == SF_HASH_MURMUR2)
		set_int(result, ScriptHashMurmur2(v, (uint64) n));
	else
	{
		if (!ScriptToInt(&args[2], &seed, error) || !ScriptPermute(v, n, seed, &v, error))
			return false;
		set_int(result, v);
	}
	return true;
}

/* Every function but the lazy ones, of its evaluated arguments. */
static bool
eval_function(ScriptFunc func, const ScriptValue *args, int nargs,
			  const ScriptEvalEnv *env, ScriptValue *result, ScriptError *error)
{
	double		d1,
				d2;

	switch (func)
	{
		case SF_ADD:
		case SF_SUB:
		case SF_MUL:
		case SF_DIV:
		case SF_MOD:
		case SF_EQ:
		case SF_NE:
		case SF_LE:
		case SF_LT:
			return eval_arith(func, &args[0], &args[1], result, error);
		case SF_BITAND:
		case SF_BITOR:
		case SF_BITXOR:
		case SF_LSHIFT:
		case SF_RSHIFT:
			return eval_bitwise(func, &args[0], &args[1], result, error);
		case SF_IS:
			/* the right side is NULL, TRUE or FALSE (the grammar's) */
			set_bool(result, args[0].type == args[1].type &&
					 (args[0].type != SCRIPT_BOOL || args[0].u.b == args[1].u.b));
			return true;
		case SF_PI:
			set_double(result, M_PI);
			return true;
		case SF_POW:
			if (!ScriptToDouble(&args[0], &d1, error) || !ScriptToDouble(&args[1], &d2, error))
				return false;
			set_double(result, pow(d1, d2));
			return true;
		case SF_LEAST:
		case SF_GREATEST:
			return eval_extremum(func, args, nargs, result, error);
		case SF_HASH_FNV1A:
		case SF_HASH_MURMUR2:
		case SF_PERMUTE:
			return eval_hash(func, args, result, error);
		case SF_RANDOM:
		case SF_RANDOM_EXPONENTIAL:
		case SF_RANDOM_GAUSSIAN:
		case SF_RANDOM_ZIPFIAN:
			return ScriptRandom(func, args, env->prng, result, error);
		default:
			return eval_unary(func, &args[0], env, result, error);
	}
}

/* AND, OR: lazy, and a NULL first operand is the result. */
static bool
eval_logical(const ScriptNode *node, const ScriptEvalEnv *env,
			 ScriptValue *result, ScriptError *error)
{
	ScriptValue v;
	bool		b;

	if (!eval_node(node->args[0], env, &v, error))
		return false;
	if (v.type == SCRIPT_NULL)
	{
		set_null(result);
		return true;
	}
	if (!to_bool(&v, &b, error))
		return false;
	if (b == (node->func == SF_OR))
	{
		set_bool(result, b);
		return true;
	}
	if (!eval_node(node->args[1], env, &v, error))
		return false;
	if (v.type == SCRIPT_NULL)
	{
		set_null(result);
		return true;
	}
	if (!to_bool(&v, &b, error))
		return false;
	set_bool(result, b);
	return true;
}

/* CASE: conditions and values in pairs, then the ELSE value (or NULL). */
static bool
eval_case(const ScriptNode *node, const ScriptEvalEnv *env,
		  ScriptValue *result, ScriptError *error)
{
	int			i;

	for (i = 0; i + 1 < node->nargs; i += 2)
	{
		ScriptValue cond;

		if (!eval_node(node->args[i], env, &cond, error))
			return false;
		if (ScriptValueTruth(&cond))
			return eval_node(node->args[i + 1], env, result, error);
	}
	return eval_node(node->args[i], env, result, error);
}

static bool
eval_call(const ScriptNode *node, const ScriptEvalEnv *env,
		  ScriptValue *result, ScriptError *error)
{
	ScriptValue args[SCRIPT_EXPR_MAX_ARGS];
	bool		has_null = false;

	if (node->func == SF_AND || node->func == SF_OR)
		return eval_logical(node, env, result, error);
	if (node->func == SF_CASE)
		return eval_case(node, env, result, error);

	Assert(node->nargs <= SCRIPT_EXPR_MAX_ARGS);
	for (int i = 0; i < node->nargs; i++)
	{
		if (!eval_node(node->args[i], env, &args[i], error))
			return false;
		has_null |= (args[i].type == SCRIPT_NULL);
	}
	if (has_null && node->func != SF_IS && node->func != SF_DEBUG)
	{
		set_null(result);
		return true;
	}
	return eval_function(node->func, args, node->nargs, env, result, error);
}

static bool
eval_node(const ScriptNode *node, const ScriptEvalEnv *env,
		  ScriptValue *result, ScriptError *error)
{
	/* the parser bounds the depth; a small max_stack_depth is checked too */
	if (stack_is_too_deep())
	{
		ScriptErrorSet(error, ERRCODE_STATEMENT_TOO_COMPLEX,
					   "Raise max_stack_depth, or split the computation over several \\set commands.",
					   "expression is nested too deeply for max_stack_depth");
		return false;
	}
	switch (node->kind)
	{
		case SNODE_CONST:
			*result = node->value;
			return true;
		case SNODE_VAR:
			return env->lookup(env->lookup_arg, &node->var, result, error);
		case SNODE_FUNC:
			return eval_call(node, env, result, error);
	}
	return false;
}

/*
 * Evaluates a parsed expression: true with *result, or false with *error
 * (a run-time error, which pgbench would abort the client with).
 */
bool
ScriptExprEval(const ScriptExpr *expr, const ScriptEvalEnv *env,
			   ScriptValue *result, ScriptError *error)
{
	error->sqlstate = 0;
	error->column = 0;
	return eval_node(expr->root, env, result, error);
}

/* Reports a ScriptError as an ERROR. */
void
ScriptErrorRaise(const ScriptError *error, const char *expr_text)
{
	ereport(ERROR,
			(errcode(error->sqlstate),
			 errmsg("%s", error->message),
			 expr_text ? errdetail("The expression is: %.200s", expr_text) : 0,
			 error->hint[0] ? errhint("%s", error->hint) : 0));
}
