/*-------------------------------------------------------------------------
 *
 * script_expr.h
 *		pgbench's \set expression language, parsed and evaluated in the
 *		server: what the script interpreter calls, per client, with no SQL
 *		round trip.
 *
 * An expression is parsed once, into memory the caller owns (the current
 * memory context), and evaluated any number of times.  Evaluation allocates
 * nothing and never throws: every failure pgbench reports at run time
 * (overflow, division by zero, an undefined variable, a bad random
 * parameter, ...) comes back as false with a ScriptError, so that the
 * interpreter can fail the transaction as pgbench fails its client.
 * Parsing reports errors the same way, with the column pgbench's caret
 * points at; ScriptErrorRaise() turns either into an ERROR.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_EXPR_H
#define PGBL_SCRIPT_EXPR_H

#include "common/pg_prng.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* Limits, with their own error each (pgbench has none but memory's). */
#define SCRIPT_EXPR_MAX_LENGTH	65536	/* bytes of one expression */
#define SCRIPT_EXPR_MAX_DEPTH	1000	/* levels of its tree */
#define SCRIPT_EXPR_MAX_ARGS	16	/* arguments of one function call */

/* A value, as pgbench's variables hold them. */
typedef enum ScriptValueType
{
	SCRIPT_NULL = 0,
	SCRIPT_BOOL,
	SCRIPT_INT,
	SCRIPT_DOUBLE
} ScriptValueType;

typedef struct ScriptValue
{
	ScriptValueType type;
	union
	{
		bool		b;
		int64		i;
		double		d;
	}			u;
} ScriptValue;

/*
 * A failure, without palloc: the SQLSTATE (an ERRCODE_ value), the message
 * and hint, and for a parse error the 1-based byte column in the
 * expression where pgbench's caret would point (0 at run time).  A caller
 * that holds the expression inside a longer line adds its offset.
 */
#define SCRIPT_ERROR_TEXT	256

typedef struct ScriptError
{
	int			sqlstate;
	int			column;
	char		message[SCRIPT_ERROR_TEXT];
	char		hint[SCRIPT_ERROR_TEXT];
} ScriptError;

/*
 * A variable reference (":name", or the default_seed that hash() and
 * permute() read when no seed is given).  slot is -1 after parsing; the
 * caller may set it (ScriptExprVarRefs()) to find the variable without a
 * name lookup at each evaluation.
 */
typedef struct ScriptVarRef
{
	const char *name;
	int			slot;
} ScriptVarRef;

/*
 * Finds a variable's value.  Returns true with *value set; or false, with
 * *error set (ScriptErrorUndefined() for a name that is not defined,
 * ScriptValueFromText()'s error for a text that is no value).
 */
typedef bool (*ScriptVarLookup) (void *arg, const ScriptVarRef *ref,
								 ScriptValue *value, ScriptError *error);

/* What an evaluation reads: variables, the client's random state. */
typedef struct ScriptEvalEnv
{
	ScriptVarLookup lookup;
	void	   *lookup_arg;
	pg_prng_state *prng;		/* random*() draw from it, as pgbench's
								 * per-client function state */
	const char *debug_label;	/* names the command in debug()'s log line */
} ScriptEvalEnv;

typedef struct ScriptExpr ScriptExpr;

/* script_expr.c: parsing */
extern ScriptExpr *ScriptExprParse(const char *text, int len, ScriptError *error);
extern int	ScriptExprVarRefs(ScriptExpr *expr, ScriptVarRef ***refs);

/* script_expr_eval.c: evaluation */
extern bool ScriptExprEval(const ScriptExpr *expr, const ScriptEvalEnv *env,
						   ScriptValue *result, ScriptError *error);
extern void ScriptErrorRaise(const ScriptError *error, const char *expr_text);

/* script_values.c: values as text, variables' names */
extern bool ScriptValueFromText(const char *name, const char *text,
								ScriptValue *value, ScriptError *error);
extern int	ScriptValueFormat(const ScriptValue *value, char *buf, size_t size);
extern bool ScriptValueTruth(const ScriptValue *value);
extern bool ScriptVariableNameValid(const char *name);
extern void ScriptErrorUndefined(ScriptError *error, const char *name);

/* script_expr_sql.c: a variables argument as name\0text\0 ... \0 */
extern void ScriptVariablesText(Jsonb *json, bool null_ok, StringInfo out);

/* script_funcs.c: pgbench's seeding of its clients */
extern void ScriptSeedClients(uint64 random_seed, int nclients,
							  pg_prng_state *client_states, int64 *default_seed);
extern void ScriptSeedChoose(uint64 random_seed, int nclients, bool default_seed_drawn,
							 int client, pg_prng_state *state);
extern void ScriptSeedClient(uint64 random_seed, int client, pg_prng_state *state);

/*
 * ------------------------------------------------------------------------
 * Shared by the script_expr*.c and script_funcs.c files only
 * ------------------------------------------------------------------------
 */

/* Every operator and function; an operator is a function of the tree. */
typedef enum ScriptFunc
{
	SF_ADD, SF_SUB, SF_MUL, SF_DIV, SF_MOD,
	SF_EQ, SF_NE, SF_LE, SF_LT,
	SF_AND, SF_OR, SF_NOT, SF_IS, SF_CASE,
	SF_BITAND, SF_BITOR, SF_BITXOR, SF_LSHIFT, SF_RSHIFT,
	SF_ABS, SF_DEBUG, SF_DOUBLE, SF_EXP, SF_GREATEST, SF_LEAST,
	SF_HASH_FNV1A, SF_HASH_MURMUR2, SF_INT, SF_LN, SF_PERMUTE, SF_PI,
	SF_POW, SF_RANDOM, SF_RANDOM_EXPONENTIAL, SF_RANDOM_GAUSSIAN,
	SF_RANDOM_ZIPFIAN, SF_SQRT
} ScriptFunc;

typedef enum ScriptNodeKind
{
	SNODE_CONST,
	SNODE_VAR,
	SNODE_FUNC
} ScriptNodeKind;

typedef struct ScriptNode ScriptNode;

struct ScriptNode
{
	ScriptNodeKind kind;
	ScriptValue value;			/* SNODE_CONST */
	ScriptVarRef var;			/* SNODE_VAR */
	ScriptFunc	func;			/* SNODE_FUNC */
	int			nargs;
	ScriptNode **args;
	int			depth;			/* levels below this node */
};

struct ScriptExpr
{
	ScriptNode *root;
	int			nrefs;
	ScriptVarRef **refs;		/* every SNODE_VAR's reference */
};

extern void ScriptErrorSet(ScriptError *error, int sqlstate, const char *hint,
						   const char *fmt,...) pg_attribute_printf(4, 5);

/* script_expr_lex.c: the tokens of pgbench's expression lexer */
typedef enum ScriptTokenKind
{
	ST_END,						/* end of the line or of the text */
	ST_INT, ST_MAXINT1, ST_DOUBLE, ST_TRUE, ST_FALSE, ST_NULL, ST_VAR, ST_IDENT,
	ST_LPAREN, ST_RPAREN, ST_COMMA,
	ST_PLUS, ST_MINUS, ST_STAR, ST_SLASH, ST_PERCENT,
	ST_EQ, ST_NE, ST_LT, ST_GT, ST_LE, ST_GE,
	ST_BITOR, ST_BITAND, ST_HASH, ST_TILDE, ST_LSHIFT, ST_RSHIFT,
	ST_AND, ST_OR, ST_NOT, ST_IS, ST_ISNULL, ST_NOTNULL,
	ST_CASE, ST_WHEN, ST_THEN, ST_ELSE, ST_ENDKW
} ScriptTokenKind;

typedef struct ScriptToken
{
	ScriptTokenKind kind;
	int			start;			/* byte offsets in the text */
	int			end;			/* one past the last byte */
	bool		newline;		/* ST_END: a newline ended the line */
	int64		ival;			/* ST_INT; ST_TRUE 1, ST_FALSE 0 */
	double		dval;			/* ST_DOUBLE */
} ScriptToken;

typedef struct ScriptLexer
{
	const char *text;
	int			len;
	int			pos;			/* where the next token starts to be looked for */
} ScriptLexer;

extern bool ScriptLex(ScriptLexer *lexer, ScriptToken *token, ScriptError *error);
extern bool ScriptLexIsSpace(char c);

/* script_values.c: pgbench's coercions, false with the error set */
#define SCRIPT_HINT_OVERFLOW "Integer arithmetic is on 64 bits and an overflow is an error, " \
	"as in pgbench; double() computes in floating point."

extern bool ScriptCoerceError(const ScriptValue *value, const char *to, ScriptError *error);
extern bool ScriptToInt(const ScriptValue *value, int64 *result, ScriptError *error);
extern bool ScriptToDouble(const ScriptValue *value, double *result, ScriptError *error);

/* script_funcs.c: the functions that draw or hash */
extern bool ScriptRandom(ScriptFunc func, const ScriptValue *args,
						 pg_prng_state *prng, ScriptValue *result, ScriptError *error);
extern int64 ScriptHashFnv1a(int64 value, uint64 seed);
extern int64 ScriptHashMurmur2(int64 value, uint64 seed);
extern bool ScriptPermute(int64 value, int64 size, int64 seed, int64 *result,
						  ScriptError *error);

#endif							/* PGBL_SCRIPT_EXPR_H */
