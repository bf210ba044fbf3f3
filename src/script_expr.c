/*-------------------------------------------------------------------------
 *
 * script_expr.c
 *		pgbench's \set expression language: the parser.
 *
 * The language is pgbench's, token for token (script_expr_lex.c): integer,
 * double, boolean and NULL constants, :variables, the operators of
 * pgbench's grammar with its precedence and associativity, function calls
 * and CASE.  The parser is
 * written by hand as precedence climbing, which resolves an operator
 * exactly as the yacc precedence declarations of pgbench's grammar do:
 * from loosest to tightest, OR; AND; NOT (prefix, right); IS, ISNULL,
 * NOTNULL (non-associative); the comparisons (non-associative, so
 * "1 < 2 < 3" is an error); the bitwise operators and prefix ~ (left);
 * + and - (left); * / % (left); prefix + and - (right).  The tree is
 * pgbench's too: "-x" is "0 - x", "~x" is "-1 # x", "a > b" is "b < a",
 * "x IS NOT NULL" is "NOT (x IS NULL)", and hash() or permute() without a
 * seed reads the variable default_seed, so that values, NULLs and errors
 * come out as pgbench's do.
 *
 * Errors carry pgbench's column: the last byte of the token the parser
 * was looking at (the end of the line for a premature end), 1-based.
 * pgbench, before it reports an error, lexes the rest of the line to print
 * it, and a bad token found there (an unexpected character, a constant
 * out of range) replaces the error it was about to report; the last such
 * token wins.  report_error() does the same, so that a script is refused
 * with the message and column pgbench would give.
 *
 * Nothing here throws but palloc: a bad expression returns NULL with a
 * ScriptError, for the caller to report with its line number.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/elog.h"

#include "script_expr.h"

typedef enum Assoc
{
	ASSOC_LEFT,
	ASSOC_RIGHT,
	ASSOC_NONE
} Assoc;

typedef struct Parser
{
	ScriptLexer lx;
	ScriptToken tok;			/* the token looked at, when have_tok */
	bool		have_tok;
	int			depth;			/* recursion of parse_expr() */
	ScriptError *error;
	int			nrefs;
	int			maxrefs;
	ScriptVarRef **refs;
} Parser;

/* The functions by name: argument counts, and whether a seed defaults. */
typedef struct FuncInfo
{
	const char *name;
	ScriptFunc	func;
	int8		min_args;
	int8		max_args;
	bool		seeded;			/* the last argument defaults to
								 * :default_seed */
	const char *takes;			/* for the hint */
} FuncInfo;

static const FuncInfo functions[] = {
	{"abs", SF_ABS, 1, 1, false, "1 argument"},
	{"debug", SF_DEBUG, 1, 1, false, "1 argument"},
	{"double", SF_DOUBLE, 1, 1, false, "1 argument"},
	{"exp", SF_EXP, 1, 1, false, "1 argument"},
	{"greatest", SF_GREATEST, 1, SCRIPT_EXPR_MAX_ARGS, false, "1 to 16 arguments"},
	{"hash", SF_HASH_MURMUR2, 1, 2, true, "a value and an optional seed"},
	{"hash_fnv1a", SF_HASH_FNV1A, 1, 2, true, "a value and an optional seed"},
	{"hash_murmur2", SF_HASH_MURMUR2, 1, 2, true, "a value and an optional seed"},
	{"int", SF_INT, 1, 1, false, "1 argument"},
	{"least", SF_LEAST, 1, SCRIPT_EXPR_MAX_ARGS, false, "1 to 16 arguments"},
	{"ln", SF_LN, 1, 1, false, "1 argument"},
	{"mod", SF_MOD, 2, 2, false, "2 arguments"},
	{"permute", SF_PERMUTE, 2, 3, true, "a value, a size and an optional seed"},
	{"pi", SF_PI, 0, 0, false, "no argument"},
	{"pow", SF_POW, 2, 2, false, "2 arguments"},
	{"power", SF_POW, 2, 2, false, "2 arguments"},
	{"random", SF_RANDOM, 2, 2, false, "2 arguments"},
	{"random_exponential", SF_RANDOM_EXPONENTIAL, 3, 3, false, "3 arguments"},
	{"random_gaussian", SF_RANDOM_GAUSSIAN, 3, 3, false, "3 arguments"},
	{"random_zipfian", SF_RANDOM_ZIPFIAN, 3, 3, false, "3 arguments"},
	{"sqrt", SF_SQRT, 1, 1, false, "1 argument"},
};

#define HINT_SYNTAX "An expression is written as in pgbench's \\set: numbers, :variables, " \
	"operators, function calls and CASE WHEN ... THEN ... ELSE ... END."
#define HINT_FUNCTIONS "The functions are abs, debug, double, exp, greatest, hash, " \
	"hash_fnv1a, hash_murmur2, int, least, ln, mod, permute, pi, pow, power, random, " \
	"random_exponential, random_gaussian, random_zipfian and sqrt."
#define HINT_LIMIT "Split the computation over several \\set commands."

static ScriptNode *parse_expr(Parser *p, int ctx_prec, Assoc ctx_assoc);


void
ScriptErrorSet(ScriptError *error, int sqlstate, const char *hint,
			   const char *fmt,...)
{
	va_list		args;

	error->sqlstate = sqlstate;
	error->column = 0;
	va_start(args, fmt);
	vsnprintf(error->message, sizeof(error->message), fmt, args);
	va_end(args);
	strlcpy(error->hint, hint ? hint : "", sizeof(error->hint));
}

/*
 * Sets the error and returns NULL: but first, as pgbench does, lexes the
 * rest of the line, and the last bad token there is the error instead.
 */
static ScriptNode *
report_error(Parser *p, int column, int sqlstate, const char *hint,
			 const char *fmt,...) pg_attribute_printf(5, 6);

static ScriptNode *
report_error(Parser *p, int column, int sqlstate, const char *hint,
			 const char *fmt,...)
{
	ScriptError later;
	ScriptError *mine = p->error;
	ScriptToken	t;
	va_list		args;

	mine->sqlstate = sqlstate;
	va_start(args, fmt);
	vsnprintf(mine->message, sizeof(mine->message), fmt, args);
	va_end(args);
	strlcpy(mine->hint, hint ? hint : "", sizeof(mine->hint));
	mine->column = column;

	/* the token looked at was the last one lexed; go on from there */
	p->error = &later;
	for (;;)
	{
		if (!ScriptLex(&p->lx, &t, p->error))
			*mine = later;
		else if (t.kind == ST_END)
			break;
	}
	p->error = mine;
	return NULL;
}

/* The token looked at (lexed on first use); false on a lexical error. */
static bool
peek(Parser *p)
{
	if (p->have_tok)
		return true;
	if (!ScriptLex(&p->lx, &p->tok, p->error))
	{
		/* the bad token was the one looked at: the rest of the line next */
		report_error(p, p->error->column, p->error->sqlstate, p->error->hint,
					 "%s", p->error->message);
		return false;
	}
	p->have_tok = true;
	return true;
}

static inline void
consume(Parser *p)
{
	Assert(p->have_tok);
	p->have_tok = false;
}

static ScriptNode *
syntax_error(Parser *p)
{
	return report_error(p, p->tok.end, ERRCODE_INVALID_PARAMETER_VALUE, HINT_SYNTAX,
						"syntax error at column %d", p->tok.end);
}

static ScriptNode *
new_node(ScriptNodeKind kind)
{
	ScriptNode *n = palloc0(sizeof(ScriptNode));

	n->kind = kind;
	n->var.slot = -1;
	return n;
}

static ScriptNode *
make_const(ScriptValueType type, int64 ival, double dval)
{
	ScriptNode *n = new_node(SNODE_CONST);

	n->value.type = type;
	if (type == SCRIPT_DOUBLE)
		n->value.u.d = dval;
	else if (type == SCRIPT_BOOL)
		n->value.u.b = (ival != 0);
	else
		n->value.u.i = ival;
	return n;
}

static ScriptNode *
make_var(Parser *p, const char *name, int len)
{
	ScriptNode *n = new_node(SNODE_VAR);

	n->var.name = pnstrdup(name, len);
	if (p->nrefs == p->maxrefs)
	{
		p->maxrefs = Max(8, p->maxrefs * 2);
		p->refs = p->refs ? repalloc(p->refs, p->maxrefs * sizeof(ScriptVarRef *))
			: palloc(p->maxrefs * sizeof(ScriptVarRef *));
	}
	p->refs[p->nrefs++] = &n->var;
	return n;
}

static ScriptNode *
make_func(ScriptFunc func, int nargs, ScriptNode **args)
{
	ScriptNode *n = new_node(SNODE_FUNC);

	n->func = func;
	n->nargs = nargs;
	n->args = palloc(Max(nargs, 1) * sizeof(ScriptNode *));
	memcpy(n->args, args, nargs * sizeof(ScriptNode *));
	for (int i = 0; i < nargs; i++)
		n->depth = Max(n->depth, args[i]->depth + 1);
	return n;
}

static ScriptNode *
make_op(ScriptFunc func, ScriptNode *left, ScriptNode *right)
{
	ScriptNode *args[2] = {left, right};

	return make_func(func, right ? 2 : 1, args);
}

/* An infix or postfix operator's precedence (0: none) and function. */
static int
infix(ScriptTokenKind kind, Assoc *assoc, ScriptFunc *func, bool *swap)
{
	*assoc = ASSOC_LEFT;
	*swap = false;
	switch (kind)
	{
		case ST_OR:
			*func = SF_OR;
			return 1;
		case ST_AND:
			*func = SF_AND;
			return 2;
		case ST_IS:
		case ST_ISNULL:
		case ST_NOTNULL:
			*assoc = ASSOC_NONE;
			*func = SF_IS;
			return 4;
		case ST_EQ:
		case ST_NE:
		case ST_LT:
		case ST_LE:
			*assoc = ASSOC_NONE;
			*func = kind == ST_EQ ? SF_EQ : kind == ST_NE ? SF_NE : kind == ST_LT ? SF_LT : SF_LE;
			return 5;
		case ST_GT:
		case ST_GE:
			/* a > b is b < a, a >= b is b <= a, as in pgbench */
			*assoc = ASSOC_NONE;
			*swap = true;
			*func = kind == ST_GT ? SF_LT : SF_LE;
			return 5;
		case ST_BITOR:
		case ST_BITAND:
		case ST_HASH:
		case ST_LSHIFT:
		case ST_RSHIFT:
			*func = kind == ST_BITOR ? SF_BITOR : kind == ST_BITAND ? SF_BITAND :
				kind == ST_HASH ? SF_BITXOR : kind == ST_LSHIFT ? SF_LSHIFT : SF_RSHIFT;
			return 6;
		case ST_PLUS:
		case ST_MINUS:
			*func = kind == ST_PLUS ? SF_ADD : SF_SUB;
			return 7;
		case ST_STAR:
		case ST_SLASH:
		case ST_PERCENT:
			*func = kind == ST_STAR ? SF_MUL : kind == ST_SLASH ? SF_DIV : SF_MOD;
			return 8;
		default:
			return 0;
	}
}

/* After "x IS": NULL, TRUE, FALSE, or NOT and one of them. */
static ScriptNode *
parse_is(Parser *p, ScriptNode *left)
{
	bool		negate = false;
	ScriptNode *right;

	if (!peek(p))
		return NULL;
	if (p->tok.kind == ST_NOT)
	{
		negate = true;
		consume(p);
		if (!peek(p))
			return NULL;
	}
	if (p->tok.kind == ST_NULL)
		right = make_const(SCRIPT_NULL, 0, 0);
	else if (p->tok.kind == ST_TRUE || p->tok.kind == ST_FALSE)
		right = make_const(SCRIPT_BOOL, p->tok.ival, 0);
	else
		return syntax_error(p);
	consume(p);
	left = make_op(SF_IS, left, right);
	return negate ? make_op(SF_NOT, left, NULL) : left;
}

/* The nesting limit: evaluation recurses over the tree. */
static ScriptNode *
too_deep(Parser *p)
{
	return report_error(p, p->tok.end, ERRCODE_STATEMENT_TOO_COMPLEX, HINT_LIMIT,
						"expression is nested too deeply (at most %d levels) at column %d",
						SCRIPT_EXPR_MAX_DEPTH, p->tok.end);
}

static ScriptNode *
check_depth(Parser *p, ScriptNode *n)
{
	if (n != NULL && n->depth >= SCRIPT_EXPR_MAX_DEPTH)
		return too_deep(p);
	return n;
}

static ScriptNode **
add_arg(ScriptNode **args, int n, int *max, ScriptNode *arg)
{
	if (n == *max)
	{
		*max *= 2;
		args = repalloc(args, *max * sizeof(ScriptNode *));
	}
	args[n] = arg;
	return args;
}

static const FuncInfo *
find_function(const char *name, int len)
{
	for (int k = 0; k < lengthof(functions); k++)
	{
		if (strlen(functions[k].name) == len &&
			pg_strncasecmp(name, functions[k].name, len) == 0)
			return &functions[k];
	}
	return NULL;
}

/* The argument count checked at the closing parenthesis, as pgbench does. */
static bool
check_arg_count(Parser *p, const FuncInfo *f, int n)
{
	char	   *hint;

	if (n >= f->min_args && n <= f->max_args)
		return true;
	hint = psprintf("%s takes %s.", f->name, f->takes);
	if (n > SCRIPT_EXPR_MAX_ARGS)
		report_error(p, p->tok.end, ERRCODE_TOO_MANY_ARGUMENTS, hint,
					 "too many arguments for %s (at most %d) at column %d",
					 f->name, SCRIPT_EXPR_MAX_ARGS, p->tok.end);
	else if (n == 0 && f->max_args == SCRIPT_EXPR_MAX_ARGS)
		report_error(p, p->tok.end, ERRCODE_INVALID_PARAMETER_VALUE, hint,
					 "%s needs at least one argument at column %d", f->name, p->tok.end);
	else
		report_error(p, p->tok.end, ERRCODE_INVALID_PARAMETER_VALUE, hint,
					 "wrong number of arguments for %s at column %d", f->name, p->tok.end);
	return false;
}

/*
 * name(arguments).  The name is looked up before anything after it is
 * read; pgbench's grammar accepts one comma before the first argument.
 */
static ScriptNode *
parse_call(Parser *p)
{
	ScriptToken	name = p->tok;
	const FuncInfo *f = find_function(p->lx.text + name.start, name.end - name.start);
	int			n = 0;
	int			max = 4;
	ScriptNode **args = palloc(max * sizeof(ScriptNode *));

	if (f == NULL)
		return report_error(p, name.end, ERRCODE_UNDEFINED_OBJECT, HINT_FUNCTIONS,
							"unknown function \"%.*s\" at column %d",
							Min(name.end - name.start, 64), p->lx.text + name.start, name.end);
	consume(p);
	if (!peek(p))
		return NULL;
	if (p->tok.kind != ST_LPAREN)
		return syntax_error(p);
	consume(p);
	if (!peek(p))
		return NULL;
	if (p->tok.kind != ST_RPAREN)
	{
		if (p->tok.kind == ST_COMMA)
			consume(p);
		for (;;)
		{
			ScriptNode *arg = parse_expr(p, 0, ASSOC_LEFT);

			if (arg == NULL || !peek(p))
				return NULL;
			args = add_arg(args, n++, &max, arg);
			if (p->tok.kind != ST_COMMA)
				break;
			consume(p);
		}
		if (p->tok.kind != ST_RPAREN)
			return syntax_error(p);
	}
	consume(p);
	if (!check_arg_count(p, f, n))
		return NULL;
	if (f->seeded && n < f->max_args)
		args = add_arg(args, n++, &max, make_var(p, "default_seed", strlen("default_seed")));
	return make_func(f->func, n, args);
}

/* CASE WHEN c THEN v [WHEN c THEN v ...] [ELSE v] END: c, v, ..., else */
static ScriptNode *
parse_case(Parser *p)
{
	int			n = 0;
	int			max = 4;
	ScriptNode **args = palloc(max * sizeof(ScriptNode *));
	ScriptNode *e;

	consume(p);
	if (!peek(p))
		return NULL;
	if (p->tok.kind != ST_WHEN)
		return syntax_error(p);
	while (p->tok.kind == ST_WHEN)
	{
		consume(p);
		if ((e = parse_expr(p, 0, ASSOC_LEFT)) == NULL || !peek(p))
			return NULL;
		args = add_arg(args, n++, &max, e);
		if (p->tok.kind != ST_THEN)
			return syntax_error(p);
		consume(p);
		if ((e = parse_expr(p, 0, ASSOC_LEFT)) == NULL || !peek(p))
			return NULL;
		args = add_arg(args, n++, &max, e);
	}
	if (p->tok.kind == ST_ELSE)
	{
		consume(p);
		if ((e = parse_expr(p, 0, ASSOC_LEFT)) == NULL || !peek(p))
			return NULL;
	}
	else
		e = make_const(SCRIPT_NULL, 0, 0);
	args = add_arg(args, n++, &max, e);
	if (p->tok.kind != ST_ENDKW)
		return syntax_error(p);
	consume(p);
	return make_func(SF_CASE, n, args);
}

/* A prefix operator's operand, bound as tightly as its precedence says. */
static ScriptNode *
parse_prefix(Parser *p, ScriptTokenKind kind)
{
	ScriptNode *n;

	consume(p);
	switch (kind)
	{
		case ST_PLUS:
			return parse_expr(p, 9, ASSOC_RIGHT);
		case ST_MINUS:
			if (!peek(p))
				return NULL;
			if (p->tok.kind == ST_MAXINT1)
			{
				/* INT64_MIN, the one constant written with its sign */
				consume(p);
				return make_const(SCRIPT_INT, PG_INT64_MIN, 0);
			}
			n = parse_expr(p, 9, ASSOC_RIGHT);
			return n ? make_op(SF_SUB, make_const(SCRIPT_INT, 0, 0), n) : NULL;
		case ST_TILDE:
			n = parse_expr(p, 6, ASSOC_LEFT);
			return n ? make_op(SF_BITXOR, make_const(SCRIPT_INT, -1, 0), n) : NULL;
		default:
			n = parse_expr(p, 3, ASSOC_RIGHT);
			return n ? make_op(SF_NOT, n, NULL) : NULL;
	}
}

/* A constant, a variable, a call, CASE, a parenthesis or a prefix operator. */
static ScriptNode *
parse_primary(Parser *p)
{
	ScriptToken t;
	ScriptNode *n;

	if (!peek(p))
		return NULL;
	t = p->tok;
	switch (t.kind)
	{
		case ST_IDENT:
			return parse_call(p);
		case ST_CASE:
			return parse_case(p);
		case ST_PLUS:
		case ST_MINUS:
		case ST_TILDE:
		case ST_NOT:
			return parse_prefix(p, t.kind);
		case ST_LPAREN:
			consume(p);
			if ((n = parse_expr(p, 0, ASSOC_LEFT)) == NULL || !peek(p))
				return NULL;
			if (p->tok.kind != ST_RPAREN)
				return syntax_error(p);
			consume(p);
			return n;
		case ST_NULL:
		case ST_TRUE:
		case ST_FALSE:
		case ST_INT:
		case ST_DOUBLE:
			consume(p);
			return make_const(t.kind == ST_NULL ? SCRIPT_NULL :
							  t.kind == ST_INT ? SCRIPT_INT :
							  t.kind == ST_DOUBLE ? SCRIPT_DOUBLE : SCRIPT_BOOL,
							  t.ival, t.dval);
		case ST_VAR:
			consume(p);
			return make_var(p, p->lx.text + t.start + 1, t.end - t.start - 1);
		default:
			return syntax_error(p);
	}
}

/*
 * An expression whose operators bind tighter than the context's: the
 * operand of a prefix operator of precedence ctx_prec, or the right
 * operand of an infix one.  An operator of the context's own precedence
 * ends the operand if the context is left-associative and is an error if
 * it is non-associative, as yacc resolves them.
 */
static ScriptNode *
parse_expr(Parser *p, int ctx_prec, Assoc ctx_assoc)
{
	ScriptNode *left;

	if (++p->depth > SCRIPT_EXPR_MAX_DEPTH || stack_is_too_deep())
	{
		p->depth--;
		return peek(p) ? too_deep(p) : NULL;
	}
	left = check_depth(p, parse_primary(p));
	while (left != NULL)
	{
		Assoc		assoc;
		ScriptFunc	func;
		bool		swap;
		ScriptTokenKind	kind;
		int			prec;
		ScriptNode *right;

		if (!peek(p))
		{
			left = NULL;
			break;
		}
		kind = p->tok.kind;
		prec = infix(kind, &assoc, &func, &swap);
		if (prec == 0 || prec < ctx_prec || (prec == ctx_prec && ctx_assoc == ASSOC_LEFT))
			break;
		if (prec == ctx_prec && ctx_assoc == ASSOC_NONE)
		{
			left = syntax_error(p);
			break;
		}
		consume(p);
		if (kind == ST_IS)
			left = parse_is(p, left);
		else if (kind == ST_ISNULL || kind == ST_NOTNULL)
		{
			left = make_op(SF_IS, left, make_const(SCRIPT_NULL, 0, 0));
			if (kind == ST_NOTNULL)
				left = make_op(SF_NOT, left, NULL);
		}
		else if ((right = parse_expr(p, prec, assoc)) == NULL)
			left = NULL;
		else
			left = swap ? make_op(func, right, left) : make_op(func, left, right);
		left = check_depth(p, left);
	}
	p->depth--;
	return left;
}

/*
 * Parses text[0 .. len) into an expression, in the current memory context;
 * NULL with *error set if it is no expression.
 */
ScriptExpr *
ScriptExprParse(const char *text, int len, ScriptError *error)
{
	Parser		p;
	ScriptNode *root;
	ScriptExpr *expr;

	memset(&p, 0, sizeof(p));
	memset(error, 0, sizeof(*error));
	if (len > SCRIPT_EXPR_MAX_LENGTH)
	{
		ScriptErrorSet(error, ERRCODE_PROGRAM_LIMIT_EXCEEDED, HINT_LIMIT,
					   "expression is too long (%d bytes, at most %d)",
					   len, SCRIPT_EXPR_MAX_LENGTH);
		return NULL;
	}
	p.lx.text = text;
	p.lx.len = len;
	p.error = error;
	root = parse_expr(&p, 0, ASSOC_LEFT);
	if (root == NULL || !peek(&p))
		return NULL;
	if (p.tok.kind != ST_END)
	{
		syntax_error(&p);
		return NULL;
	}
	if (p.tok.newline)
	{
		/* pgbench would read what follows as the script's next command */
		int			pos = p.tok.start;

		while (pos < len && (ScriptLexIsSpace(text[pos]) || text[pos] == '\n'))
			pos++;
		if (pos < len)
		{
			ScriptErrorSet(error, ERRCODE_INVALID_PARAMETER_VALUE,
						   "A \\set command ends at the end of its line; continue a long expression with a backslash at the end of the line.",
						   "syntax error at column %d: the expression goes on after a newline",
						   pos + 1);
			error->column = pos + 1;
			return NULL;
		}
	}
	expr = palloc(sizeof(ScriptExpr));
	expr->root = root;
	expr->nrefs = p.nrefs;
	expr->refs = p.refs;
	return expr;
}

/* The expression's variable references, for the caller to give slots to. */
int
ScriptExprVarRefs(ScriptExpr *expr, ScriptVarRef ***refs)
{
	*refs = expr->refs;
	return expr->nrefs;
}
