/*-------------------------------------------------------------------------
 *
 * script_expr_lex.c
 *		The lexer of pgbench's \set expressions.
 *
 * Its tokens are those of pgbench's lexer, longest match first: integers
 * (an integer constant above INT64_MAX is an error, but for
 * 9223372036854775808, which the parser takes only after a unary minus),
 * doubles (digits with a decimal point or an exponent, within strtod()'s
 * range, underflow included), :variables, words (the keywords AND, OR,
 * NOT, IS, ISNULL, NOTNULL, CASE, WHEN, THEN, ELSE, END, TRUE, FALSE and
 * NULL in any case, or else a function's name; letters, digits,
 * underscores and any non-ASCII byte), and the operators.  Spaces, tabs,
 * carriage returns, form and vertical feeds separate tokens, and so does a
 * backslash at the end of a line (a continued \set); a newline ends the
 * expression.  Anything else is an unexpected character.
 *
 * A token's end is where pgbench's caret points when it is the one an
 * error is found at: its last byte; for the end of the expression, the
 * newline (or where it would be).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>

#include "common/int.h"
#include "utils/elog.h"

#include "script_expr.h"

#define HINT_SYNTAX "An expression is written as in pgbench's \\set: numbers, :variables, " \
	"operators, function calls and CASE WHEN ... THEN ... ELSE ... END."

bool
ScriptLexIsSpace(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Letters, underscore and every non-ASCII byte, as pgbench's lexer has it. */
static inline bool
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		IS_HIGHBIT_SET(c);
}

static inline bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool
is_alnum(char c)
{
	return is_alpha(c) || is_digit(c);
}

/* A lexical error at the token [start, end). */
static bool
lex_error(ScriptToken *t, ScriptError *error, int sqlstate, const char *hint,
		  const char *what, const char *quote)
{
	ScriptErrorSet(error, sqlstate, hint, "%s \"%s\" at column %d", what, quote, t->end);
	error->column = t->end;
	return false;
}

static bool
lex_number(ScriptLexer *p, ScriptToken *t, ScriptError *error)
{
	const char *s = p->text;
	int			i = t->start;
	bool		is_double = false;
	char	   *copy;

	while (i < p->len && is_digit(s[i]))
		i++;
	if (i < p->len && s[i] == '.')
	{
		is_double = true;
		for (i++; i < p->len && is_digit(s[i]); i++)
			;
	}
	if (i < p->len && (s[i] == 'e' || s[i] == 'E'))
	{
		int			j = i + 1;

		if (j < p->len && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < p->len && is_digit(s[j]))
		{
			for (i = j; i < p->len && is_digit(s[i]); i++)
				;
			is_double = true;
		}
	}
	t->end = p->pos = i;
	copy = pnstrdup(s + t->start, i - t->start);

	if (!is_double)
	{
		/* INT64_MIN's digits: a constant only after a unary minus */
		if (strcmp(copy, "9223372036854775808") == 0)
		{
			t->kind = ST_MAXINT1;
			return true;
		}
		t->kind = ST_INT;
		t->ival = 0;
		for (char *c = copy; *c; c++)
		{
			if (pg_mul_s64_overflow(t->ival, 10, &t->ival) ||
				pg_add_s64_overflow(t->ival, *c - '0', &t->ival))
				return lex_error(t, error, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
								 "An integer constant is at most 9223372036854775807; a double is written with a decimal point or an exponent.",
								 "integer constant out of range:", copy);
		}
		return true;
	}

	/* strtod's range, underflow included, as pgbench reads doubles */
	t->kind = ST_DOUBLE;
	errno = 0;
	t->dval = strtod(copy, NULL);
	if (errno != 0)
		return lex_error(t, error, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
						 "A double constant is between about 2.2e-308 and 1.8e308 in magnitude, or 0.",
						 "double constant out of range:", copy);
	return true;
}

/* A word: a keyword, or a function's name. */
static void
lex_word(ScriptLexer *p, ScriptToken *t)
{
	static const struct
	{
		const char *word;
		ScriptTokenKind	kind;
	}			keywords[] = {
		{"and", ST_AND}, {"or", ST_OR}, {"not", ST_NOT}, {"is", ST_IS},
		{"isnull", ST_ISNULL}, {"notnull", ST_NOTNULL}, {"case", ST_CASE},
		{"when", ST_WHEN}, {"then", ST_THEN}, {"else", ST_ELSE}, {"end", ST_ENDKW},
		{"true", ST_TRUE}, {"false", ST_FALSE}, {"null", ST_NULL},
	};
	int			n;

	while (p->pos < p->len && is_alnum(p->text[p->pos]))
		p->pos++;
	t->end = p->pos;
	n = t->end - t->start;
	t->kind = ST_IDENT;
	for (int k = 0; k < lengthof(keywords); k++)
	{
		if (strlen(keywords[k].word) == n &&
			pg_strncasecmp(p->text + t->start, keywords[k].word, n) == 0)
		{
			t->kind = keywords[k].kind;
			break;
		}
	}
	if (t->kind == ST_TRUE || t->kind == ST_FALSE)
		t->ival = (t->kind == ST_TRUE);
}

/* An operator or punctuation; false if the byte starts no token. */
static bool
lex_operator(ScriptLexer *p, ScriptToken *t)
{
	static const struct
	{
		const char *op;
		ScriptTokenKind	kind;
	}			ops[] = {
		/* two bytes first, so that "<=" is not "<" then "=" */
		{"<>", ST_NE}, {"!=", ST_NE}, {"<=", ST_LE}, {">=", ST_GE},
		{"<<", ST_LSHIFT}, {">>", ST_RSHIFT},
		{"+", ST_PLUS}, {"-", ST_MINUS}, {"*", ST_STAR}, {"/", ST_SLASH},
		{"%", ST_PERCENT}, {"=", ST_EQ}, {"<", ST_LT}, {">", ST_GT},
		{"|", ST_BITOR}, {"&", ST_BITAND}, {"#", ST_HASH}, {"~", ST_TILDE},
		{"(", ST_LPAREN}, {")", ST_RPAREN}, {",", ST_COMMA},
	};

	for (int k = 0; k < lengthof(ops); k++)
	{
		int			n = strlen(ops[k].op);

		if (p->pos + n <= p->len && strncmp(p->text + p->pos, ops[k].op, n) == 0)
		{
			t->kind = ops[k].kind;
			p->pos += n;
			t->end = p->pos;
			return true;
		}
	}
	return false;
}

/*
 * The next token into *t; false with *error set for a bad one (the
 * lexer has moved past it).
 */
bool
ScriptLex(ScriptLexer *p, ScriptToken *t, ScriptError *error)
{
	const char *s = p->text;

	memset(t, 0, sizeof(*t));
	for (;;)
	{
		if (p->pos < p->len && ScriptLexIsSpace(s[p->pos]))
			p->pos++;
		else if (p->pos + 1 < p->len && s[p->pos] == '\\' && s[p->pos + 1] == '\n')
			p->pos += 2;		/* a continued line */
		else if (p->pos + 2 < p->len && s[p->pos] == '\\' && s[p->pos + 1] == '\r' &&
				 s[p->pos + 2] == '\n')
			p->pos += 3;
		else
			break;
	}
	t->start = p->pos;
	if (p->pos >= p->len || s[p->pos] == '\n')
	{
		/* pgbench's caret goes on the newline that ends the line */
		t->kind = ST_END;
		t->newline = p->pos < p->len;
		t->end = p->pos + 1;
		return true;
	}
	if (is_digit(s[p->pos]) || (s[p->pos] == '.' && p->pos + 1 < p->len && is_digit(s[p->pos + 1])))
		return lex_number(p, t, error);
	if (is_alpha(s[p->pos]))
	{
		lex_word(p, t);
		return true;
	}
	if (s[p->pos] == ':' && p->pos + 1 < p->len && is_alnum(s[p->pos + 1]))
	{
		for (p->pos++; p->pos < p->len && is_alnum(s[p->pos]); p->pos++)
			;
		t->kind = ST_VAR;
		t->end = p->pos;
		return true;
	}
	if (lex_operator(p, t))
		return true;

	/* one byte that starts no token: shown as is, or as \xNN */
	{
		unsigned char c = (unsigned char) s[p->pos];
		char		shown[8];

		if (c >= 0x20 && c < 0x7f)
			snprintf(shown, sizeof(shown), "%c", c);
		else
			snprintf(shown, sizeof(shown), "\\x%02X", c);
		t->end = ++p->pos;
		return lex_error(t, error, ERRCODE_INVALID_PARAMETER_VALUE, HINT_SYNTAX,
						 "unexpected character", shown);
	}
}

