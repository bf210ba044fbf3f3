/*-------------------------------------------------------------------------
 *
 * script_readonly.c
 *		Whether a run's scripts only read: the rule that lets a run of
 *		scripts go to a standby.
 *
 * A standby refuses every write (25006), so a run whose workload writes
 * is refused before anything starts when one of its targets is in
 * recovery, and a run of scripts some of which read is split there (a
 * standby's clients draw only among the scripts that read, a primary's
 * among those that write: client_libpq.c).  For the built-in workloads
 * the answer is known (select-only reads, the others write); for scripts
 * it is decided here, script by script, by a rule
 * that is deliberately conservative and simple rather than a parser's:
 * every SQL command of every script of the run must be a series of
 * statements (split at semicolons) each of which begins with SELECT,
 * WITH, VALUES, TABLE, SHOW, SET, RESET or transaction control (BEGIN,
 * START, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE), and no
 * statement may contain one of the words INSERT, UPDATE, DELETE, MERGE,
 * INTO, SHARE, WRITE, NEXTVAL or SETVAL (outside string literals, quoted
 * identifiers and comments): those catch data-modifying WITH, SELECT ...
 * INTO, row locks (FOR UPDATE, FOR SHARE), BEGIN READ WRITE and sequence
 * updates.  A script that reads may therefore be refused (a column named
 * "share"), never the other way round for what the rule sees; what it
 * cannot see, a function that writes called from a SELECT, fails on the
 * standby at run time, as the server refuses it (25006), and ends that
 * client, failed.  The meta-commands (\set, \sleep, \if ...) run in the
 * client and do not count.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "run_shared.h"
#include "script_run.h"

static const char *const first_words[] = {
	"select", "with", "values", "table", "show", "set", "reset",
	"begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release", NULL
};

static const char *const write_words[] = {
	"insert", "update", "delete", "merge", "into", "share", "write", "nextval", "setval", NULL
};

static char *
upper(const char *word)
{
	char	   *u = pstrdup(word);

	for (char *c = u; *c; c++)
		*c = pg_toupper((unsigned char) *c);
	return u;
}

static bool
in_list(const char *word, const char *const *list)
{
	for (int i = 0; list[i] != NULL; i++)
		if (strcmp(word, list[i]) == 0)
			return true;
	return false;
}

/* Skip a quoted string, identifier or comment starting at s; past its end. */
static const char *
skip_quoted(const char *s)
{
	if (s[0] == '-' && s[1] == '-')
	{
		while (*s && *s != '\n')
			s++;
		return s;
	}
	if (s[0] == '/' && s[1] == '*')
	{
		int			depth = 0;

		while (*s)
		{
			if (s[0] == '/' && s[1] == '*')
				depth++, s += 2;
			else if (s[0] == '*' && s[1] == '/')
			{
				s += 2;
				if (--depth == 0)
					break;
			}
			else
				s++;
		}
		return s;
	}
	if (*s == '\'' || *s == '"')
	{
		char		q = *s++;

		while (*s)
		{
			if (*s == '\\' && q == '\'' && s[1] != '\0')
				s += 2;			/* E'' escapes: a quote it escapes is not the end */
			else if (*s == q && s[1] == q)
				s += 2;
			else if (*s++ == q)
				break;
		}
		return s;
	}
	if (*s == '$')
	{
		const char *t = s + 1;

		while (isalnum((unsigned char) *t) || *t == '_')
			t++;
		if (*t == '$')
		{
			size_t		len = t - s + 1;
			const char *end = strstr(t + 1, pnstrdup(s, len));

			return end ? end + len : s + strlen(s);
		}
		return s + 1;			/* $1: a parameter */
	}
	return NULL;
}

/*
 * Does this SQL text only read, by the rule above?  If not, *why says
 * which word broke it.
 */
static bool
sql_reads_only(const char *sql, char **why)
{
	const char *s = sql;
	bool		first = true;

	while (*s)
	{
		const char *past = skip_quoted(s);

		if (past != NULL)
		{
			s = past;
			continue;
		}
		if (*s == ';')
		{
			first = true;
			s++;
			continue;
		}
		if (isalpha((unsigned char) *s) || *s == '_')
		{
			const char *w = s;
			char	   *word;

			while (isalnum((unsigned char) *s) || *s == '_' || *s == '$')
				s++;
			word = pnstrdup(w, s - w);
			for (char *c = word; *c; c++)
				*c = pg_tolower((unsigned char) *c);
			if (first && !in_list(word, first_words))
			{
				*why = psprintf("a statement begins with %s", upper(word));
				return false;
			}
			if (in_list(word, write_words))
			{
				*why = psprintf("a statement has the word %s", upper(word));
				return false;
			}
			first = false;
			continue;
		}
		s++;
	}
	return true;
}

/* Does one script only read?  If not, *why says where and why not. */
static bool
script_reads_only(RunScriptArea *area, RunScript *rs, char **why)
{
	ScriptProgram *prog = ScriptParse(RunScriptText(area, rs->name),
									  RunScriptText(area, rs->body));

	for (int c = 0; c < prog->ncommands; c++)
	{
		ScriptCommand *cmd = &prog->commands[c];
		char	   *reason;

		if (cmd->kind != SCMD_SQL)
			continue;
		if (cmd->sql.tx.kind == STX_BEGIN && cmd->sql.tx.read_only == 0)
		{
			*why = psprintf("script \"%s\", line %d: BEGIN READ WRITE", prog->name, cmd->line);
			return false;
		}
		if (!sql_reads_only(cmd->sql.text, &reason))
		{
			*why = psprintf("script \"%s\", line %d: %s", prog->name, cmd->line, reason);
			return false;
		}
	}
	return true;
}

/*
 * Mark which of the run's scripts only read (p->script_local, in the
 * launching session, before it is copied to the run's shared memory).
 * Returns how many do; *why names the first that writes, its line and the
 * reason (NULL when every script reads).
 */
int
ScriptSetupMarkReadsOnly(RunShared *p, char **why)
{
	RunScriptArea *area = (RunScriptArea *) p->script_local;
	int			n = 0;

	*why = NULL;
	for (int s = 0; area != NULL && s < area->nscripts; s++)
	{
		RunScript  *rs = &area->script[s];
		char	   *reason = NULL;

		rs->reads_only = script_reads_only(area, rs, &reason);
		n += rs->reads_only;
		if (!rs->reads_only && *why == NULL)
			*why = reason;
	}
	return n;
}
