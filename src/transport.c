/*-------------------------------------------------------------------------
 *
 * transport.c
 *		What the transports share (transport.h): a statement declared,
 *		its parameters' values as text, and query_mode simple's values
 *		put in the statement's text.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "transport.h"

/* A statement with nparams parameters, in the current memory context. */
void
TransportStmtInit(TransportStmt *st, const char *text, int nparams, int id)
{
	memset(st, 0, sizeof(*st));
	st->text = text;
	st->nparams = nparams;
	st->id = id;
	st->args = palloc0(sizeof(TransportArg) * Max(nparams, 1));
	st->types = palloc0(sizeof(Oid) * Max(nparams, 1));
	st->params = palloc0(sizeof(TransportSpiParam) * Max(nparams, 1));
	st->texts = palloc0(sizeof(char *) * Max(nparams, 1));
	st->bufs = palloc0(64 * Max(nparams, 1));
}

/* The values of a statement's parameters as text (NULL for a null). */
void
TransportArgTexts(TransportStmt *st)
{
	for (int p = 0; p < st->nparams; p++)
	{
		const TransportArg *a = &st->args[p];

		if (a->value == NULL)
			st->texts[p] = a->text;
		else if (a->value->type == SCRIPT_NULL)
			st->texts[p] = NULL;
		else
		{
			ScriptValueFormat(a->value, st->bufs + 64 * p, 64);
			st->texts[p] = st->bufs + 64 * p;
		}
	}
}

static bool
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '$' || IS_HIGHBIT_SET(c);
}

/* Where the quoted text, comment or dollar-quoted text starting at s ends. */
static const char *
skip_quoted(const char *start, const char *s)
{
	if (*s == '\'' || *s == '"')
	{
		char		q = *s;
		bool		backslash = q == '\'' && s > start && (s[-1] == 'E' || s[-1] == 'e') &&
			(s - 1 == start || !ident_char(s[-2]));

		for (s++; *s; s++)
		{
			if (backslash && *s == '\\' && s[1] != '\0')
				s++;
			else if (*s == q && s[1] == q)
				s++;
			else if (*s == q)
				return s + 1;
		}
		return s;
	}
	if (s[0] == '-' && s[1] == '-')
		return s + strcspn(s, "\n");
	if (s[0] == '/' && s[1] == '*')
	{
		int			depth = 0;

		for (; *s; s++)
		{
			if (s[0] == '/' && s[1] == '*')
				depth++, s++;
			else if (s[0] == '*' && s[1] == '/' && --depth == 0)
				return s + 2;
			else if (s[0] == '*' && s[1] == '/')
				s++;
		}
		return s;
	}
	/* $tag$ ... $tag$ */
	{
		const char *t = s + 1;
		const char *end;
		char	   *tag;

		while (*t && *t != '$' && ident_char(*t) && !(t == s + 1 && *t >= '0' && *t <= '9'))
			t++;
		if (*t != '$')
			return s + 1;
		tag = pnstrdup(s, t - s + 1);
		end = strstr(t + 1, tag);
		return end ? end + strlen(tag) : t + strlen(t);
	}
}

/*
 * A statement's text with its parameters $1 .. $n replaced by their
 * values as quoted literals (NULL for a null): query_mode simple, as
 * pgbench -M simple puts the values in the text.  Only the parser's own
 * $n stand outside quotes and comments (it refuses a script's own).  With
 * bare, each value goes in as it is: the built-ins' integers, which
 * pgbench pastes unquoted.
 */
char *
TransportInlineParams(const char *sql, int nparams, const char *const *values, bool bare)
{
	StringInfoData buf;
	const char *s = sql;

	initStringInfo(&buf);
	while (*s)
	{
		const char *from = s;

		if (*s == '$' && s[1] >= '0' && s[1] <= '9' && (s == sql || !ident_char(s[-1])))
		{
			int			n = 0;

			for (s++; *s >= '0' && *s <= '9' && n < 100000; s++)
				n = n * 10 + (*s - '0');
			if (n >= 1 && n <= nparams)
			{
				appendStringInfoString(&buf, values[n - 1] == NULL ? "NULL" :
									   bare ? values[n - 1] : quote_literal_cstr(values[n - 1]));
				continue;
			}
		}
		else if (*s == '\'' || *s == '"' || *s == '$' || (s[0] == '-' && s[1] == '-') ||
				 (s[0] == '/' && s[1] == '*'))
			s = skip_quoted(sql, s);
		else
			s++;
		appendBinaryStringInfo(&buf, from, s - from);
	}
	return buf.data;
}
