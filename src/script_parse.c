/*-------------------------------------------------------------------------
 *
 * script_parse.c
 *		pgbench script files parsed in the server: the list of commands,
 *		the meta-commands, the checks and the errors.
 *
 * The script is read as pgbench reads it (script_parse_lex.c finds where
 * each SQL command ends): SQL commands, and meta-commands from a
 * backslash to the end of their line.  \set, \if and \elif take an
 * expression (script_expr.c), \sleep a number or a :variable and a unit,
 * \gset and \aset an optional prefix and belong to the SQL command before
 * them; \else, \endif, \startpipeline, \syncpipeline and \endpipeline
 * take nothing.  \shell and \setshell are refused: there is no shell in
 * the server.  Pipelines are accepted and their commands run in order
 * (in the server there is no network round trip for a pipeline to save);
 * so is \syncpipeline, which pgbench has from version 17 on.
 *
 * Errors come in pgbench's order: first what pgbench refuses when it
 * reads the script (meta-command syntax, in the order of the text; an
 * empty script; \if, \elif, \else and \endif that do not match), with its
 * message, line and column; then what pgbench would meet only when the
 * script runs, the first in the text first: SQL that the server's parser
 * refuses, a :variable where no value can go, \shell, a \gset in a
 * pipeline, unpaired pipeline commands, an invalid variable name; and
 * last a transaction left open at the end of a script without \if.  The
 * line and column are those of pgbench's caret (the column counts bytes
 * from the start of the line); a meta-command error without a caret
 * points at the command's backslash, and an \if error at the command
 * pgbench names by its number (given in the detail).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/parser.h"
#include "utils/memutils.h"

#include "script_parse.h"

#define MAX_WORDS 256			/* words of a meta-command, as pgbench */

#define HINT_META "The meta-commands are \\set, \\sleep, \\if, \\elif, \\else, \\endif, \\gset, " \
	"\\aset, \\startpipeline, \\syncpipeline and \\endpipeline, each on a line of its own."
#define HINT_IF "Every \\if has an \\endif after it, with any \\elif before any \\else between them."
#define HINT_PIPELINE "A pipeline is the commands between \\startpipeline and \\endpipeline, " \
	"\\syncpipeline among them; pipelines do not nest, and none is open at the end of the script."
#define HINT_NAME "A variable's name is letters, digits and underscores, not a digit first."

/* A meta-command's words: offsets in the script. */
typedef struct Words
{
	int			n;
	int			start[MAX_WORDS];
	int			end[MAX_WORDS];
} Words;

typedef struct Parse
{
	ScriptScan	scan;
	MemoryContext scratch;		/* what only parsing needs: the scans */
	Words		words;			/* the meta-command being read */
	ScriptProgram *prog;
	int			maxcommands;
	ScriptSqlPiece **pieces;	/* by command: the SQL commands' scans */
	ScriptProblemData first;	/* the first run-time problem */
	int			line_pos;		/* lines counted up to here, */
	int			line;			/* this one, */
	int			line_start;		/* which starts here */
} Parse;

typedef enum MetaKind
{
	META_NONE, META_SET, META_SETSHELL, META_SHELL, META_SLEEP, META_GSET,
	META_ASET, META_IF, META_ELIF, META_ELSE, META_ENDIF, META_STARTPIPELINE,
	META_SYNCPIPELINE, META_ENDPIPELINE
} MetaKind;

static const struct
{
	const char *name;
	MetaKind	meta;
}			meta_names[] = {
	{"set", META_SET}, {"setshell", META_SETSHELL}, {"shell", META_SHELL},
	{"sleep", META_SLEEP}, {"gset", META_GSET}, {"aset", META_ASET}, {"if", META_IF},
	{"elif", META_ELIF}, {"else", META_ELSE}, {"endif", META_ENDIF},
	{"startpipeline", META_STARTPIPELINE}, {"syncpipeline", META_SYNCPIPELINE},
	{"endpipeline", META_ENDPIPELINE},
};

/* -- errors ------------------------------------------------------------ */

static void
line_and_column(const char *text, int offset, int *line, int *column)
{
	int			start = 0;

	*line = 1;
	for (int i = 0; i < offset; i++)
	{
		if (text[i] == '\n')
		{
			(*line)++;
			start = i + 1;
		}
	}
	*column = offset - start + 1;
}

/* The line of the script at offset (its first 200 bytes), for the detail. */
static char *
line_text(const char *text, int len, int offset)
{
	int			from = offset;
	int			to = offset;

	while (from > 0 && text[from - 1] != '\n')
		from--;
	while (to < len && text[to] != '\n')
		to++;
	while (to > from && text[to - 1] == '\r')
		to--;
	return pnstrdup(text + from, pg_mbcliplen(text + from, to - from, 200));
}

static void
raise_problem(Parse *p, const ScriptProblemData *pr)
{
	int			line;
	int			column;
	int			offset = Min(pr->offset, p->scan.len);

	line_and_column(p->scan.text, offset, &line, &column);
	ereport(ERROR,
			(errcode(pr->sqlstate),
			 errmsg("script \"%s\", line %d, column %d: %s",
					p->prog->name, line, column, pr->message),
			 pr->command > 0 ?
			 errdetail("pgbench numbers it command %d; the line is: %s", pr->command,
					   line_text(p->scan.text, p->scan.len, offset)) :
			 errdetail("The line is: %s", line_text(p->scan.text, p->scan.len, offset)),
			 errhint("%s", pr->hint)));
}

static void
raise_at(Parse *p, int sqlstate, int offset, int command, const char *hint,
		 const char *fmt,...) pg_attribute_printf(6, 7);

static void
raise_at(Parse *p, int sqlstate, int offset, int command, const char *hint,
		 const char *fmt,...)
{
	ScriptProblemData pr;
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	pr.sqlstate = sqlstate;
	pr.offset = offset;
	pr.command = command;
	pr.message = buf.data;
	pr.hint = hint;
	raise_problem(p, &pr);
}

/* Keeps the first problem in the script's order. */
static void
note(Parse *p, int sqlstate, int offset, const char *hint, const char *message)
{
	if (p->first.sqlstate != 0 && p->first.offset <= offset)
		return;
	p->first.sqlstate = sqlstate;
	p->first.offset = offset;
	p->first.command = 0;
	p->first.message = message;
	p->first.hint = hint;
}

/* -- commands ---------------------------------------------------------- */

static ScriptCommand *
add_command(Parse *p, ScriptCommandKind kind, int offset, int end)
{
	ScriptProgram *prog = p->prog;
	ScriptCommand *cmd;

	if (prog->ncommands >= SCRIPT_MAX_COMMANDS)
		raise_at(p, ERRCODE_PROGRAM_LIMIT_EXCEEDED, offset, 0,
				 "Split the work over several scripts, or loop in SQL.",
				 "too many commands (at most %d)", SCRIPT_MAX_COMMANDS);
	if (prog->ncommands == p->maxcommands)
	{
		p->maxcommands *= 2;
		prog->commands = repalloc(prog->commands, p->maxcommands * sizeof(ScriptCommand));
		p->pieces = repalloc(p->pieces, p->maxcommands * sizeof(ScriptSqlPiece *));	/* scratch */
	}
	p->pieces[prog->ncommands] = NULL;
	cmd = &prog->commands[prog->ncommands++];
	memset(cmd, 0, sizeof(*cmd));
	cmd->kind = kind;
	cmd->offset = offset;
	while (end > offset && (p->scan.text[end - 1] == '\n' || p->scan.text[end - 1] == '\r'))
		end--;
	cmd->length = end - offset;
	/* commands come in the text's order: count lines from the last one */
	for (; p->line_pos < offset; p->line_pos++)
	{
		if (p->scan.text[p->line_pos] == '\n')
		{
			p->line++;
			p->line_start = p->line_pos + 1;
		}
	}
	cmd->line = p->line;
	cmd->column = offset - p->line_start + 1;
	cmd->next_branch = cmd->endif = -1;
	return cmd;
}

static void
add_sql(Parse *p, ScriptSqlPiece *piece)
{
	ScriptCommand *cmd;

	if (piece->nparams > SCRIPT_MAX_PARAMS)
		raise_at(p, ERRCODE_TOO_MANY_ARGUMENTS, piece->param_offsets[SCRIPT_MAX_PARAMS], 0,
				 "pgbench -M extended allows as many; split the command.",
				 "too many variables in one SQL command (%d, at most %d)",
				 piece->nparams, SCRIPT_MAX_PARAMS);
	cmd = add_command(p, SCMD_SQL, piece->start, piece->end);
	while (cmd->length > 0 && isspace((unsigned char) p->scan.text[cmd->offset + cmd->length - 1]))
		cmd->length--;
	cmd->sql.text = pstrdup(piece->text.data);
	cmd->sql.nparams = piece->nparams;
	cmd->sql.params = palloc(Max(piece->nparams, 1) * sizeof(ScriptParam));
	for (int i = 0; i < piece->nparams; i++)
	{
		cmd->sql.params[i].name = pstrdup(piece->params[i].name);
		cmd->sql.params[i].mode = piece->params[i].mode;
	}
	cmd->sql.nstatements = 1;
	cmd->sql.gset_prefix = "";
	p->pieces[p->prog->ncommands - 1] = piece;
	if (piece->problem_sqlstate != 0)
		note(p, piece->problem_sqlstate, piece->problem_offset, piece->problem_hint,
			 piece->problem_message);
}

static char *
word(Parse *p, const Words *w, int k)
{
	return pnstrdup(p->scan.text + w->start[k], w->end[k] - w->start[k]);
}

/* The rest of the line as an expression: \set's, \if's, \elif's. */
static void
parse_expression(Parse *p, ScriptCommand *cmd, const char *cmdname)
{
	int			from = p->scan.pos;
	int			to = ScriptScanLineEnd(&p->scan);
	ScriptError err;
	char	   *at;

	cmd->expr = ScriptExprParse(p->scan.text + from, to - from, &err);
	if (cmd->expr == NULL)
	{
		/* at the end of the script, pgbench's caret is on its last byte */
		if (to == p->scan.len && err.column == to - from + 1)
			err.column--;
		/* the column is the script's, not the expression's */
		at = strstr(err.message, " at column ");
		if (at != NULL)
		{
			char	   *digits = at + strlen(" at column ");

			while (*digits >= '0' && *digits <= '9')
				digits++;
			memmove(at, digits, strlen(digits) + 1);
		}
		raise_at(p, err.sqlstate == ERRCODE_INVALID_PARAMETER_VALUE ? ERRCODE_SYNTAX_ERROR : err.sqlstate,
				 from + err.column - 1, 0, err.hint, "%s in \\%s", err.message, cmdname);
	}
	cmd->length = to - cmd->offset;
	while (from < to && isspace((unsigned char) p->scan.text[from]))
		from++;
	while (to > from && isspace((unsigned char) p->scan.text[to - 1]))
		to--;
	cmd->expr_text = pnstrdup(p->scan.text + from, to - from);
	while (cmd->length > 0 && (p->scan.text[cmd->offset + cmd->length - 1] == '\r'))
		cmd->length--;
}

/* \sleep n [us|ms|s], \sleep :variable [us|ms|s] */
static void
parse_sleep(Parse *p, ScriptCommand *cmd, Words *w)
{
	const char *arg = p->scan.text + w->start[1];
	int			arglen = w->end[1] - w->start[1];
	int			unit_start = w->n == 3 ? w->start[2] : -1;
	int			unit_len = w->n == 3 ? w->end[2] - w->start[2] : 0;

	cmd->sleep_unit_usec = 1000000;
	if (arg[0] == ':')
	{
		cmd->variable = pnstrdup(arg + 1, arglen - 1);
		if (!ScriptVariableNameValid(cmd->variable))
			note(p, ERRCODE_INVALID_NAME, w->start[1], HINT_NAME,
				 psprintf("invalid variable name \"%s\" in \\sleep", cmd->variable));
	}
	else
	{
		int			i = (arg[0] == '+' || arg[0] == '-') ? 1 : 0;
		int			digits = i;
		int64		value = 0;
		bool		overflow = false;

		for (; i < arglen && arg[i] >= '0' && arg[i] <= '9'; i++)
		{
			value = value * 10 + (arg[i] - '0');
			overflow |= value > PG_INT32_MAX;
		}
		if (i < arglen && (w->n != 2 || i == digits))
			raise_at(p, ERRCODE_SYNTAX_ERROR, w->start[1], 0,
					 "\\sleep takes an integer, or a :variable, and a unit: us, ms or s (the default).",
					 "invalid sleep time \"%.*s\", must be an integer", arglen, arg);
		if (i < arglen)
		{
			/* "10ms": a number and its unit */
			unit_start = w->start[1] + i;
			unit_len = arglen - i;
		}
		cmd->sleep_value = arg[0] == '-' ? -value : value;
		if (overflow)
			note(p, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, w->start[1],
				 "A sleep time is an integer of at most 2147483647 units.",
				 psprintf("sleep time \"%.*s\" is out of range", i, arg));
	}
	if (unit_start >= 0)
	{
		const char *unit = p->scan.text + unit_start;

		if (unit_len == 2 && pg_strncasecmp(unit, "us", 2) == 0)
			cmd->sleep_unit_usec = 1;
		else if (unit_len == 2 && pg_strncasecmp(unit, "ms", 2) == 0)
			cmd->sleep_unit_usec = 1000;
		else if (!(unit_len == 1 && pg_strncasecmp(unit, "s", 1) == 0))
			raise_at(p, ERRCODE_SYNTAX_ERROR, unit_start, 0,
					 "The units are us, ms and s (the default).",
					 "unrecognized time unit \"%.*s\", must be us, ms or s", unit_len, unit);
	}
}

/* \gset [prefix], \aset [prefix]: attached to the SQL command before. */
static void
attach_gset(Parse *p, Words *w, int start, bool aset)
{
	const char *name = aset ? "aset" : "gset";
	ScriptCommand *prev = p->prog->ncommands > 0 ? &p->prog->commands[p->prog->ncommands - 1] : NULL;

	if (w->n > 2)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0,
				 "\\gset and \\aset take at most a prefix for the variables' names.",
				 "too many arguments in \\%s", name);
	if (prev == NULL || prev->kind != SCMD_SQL || prev->sql.gset != SGSET_NONE)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0,
				 "\\gset and \\aset end an SQL command, at the end of its last line or on the line after it, once.",
				 "\\%s must follow an SQL command", name);
	prev->sql.gset = aset ? SGSET_ASET : SGSET_GSET;
	if (w->n == 2)
	{
		prev->sql.gset_prefix = word(p, w, 1);
		if (!ScriptVariableNameValid(prev->sql.gset_prefix))
			note(p, ERRCODE_INVALID_NAME, w->start[1], HINT_NAME,
				 psprintf("invalid variable prefix \"%s\" in \\%s", prev->sql.gset_prefix, name));
	}
}

static MetaKind
meta_kind(const char *text, int len)
{
	for (int k = 0; k < lengthof(meta_names); k++)
	{
		if (strlen(meta_names[k].name) == len && pg_strncasecmp(text, meta_names[k].name, len) == 0)
			return meta_names[k].meta;
	}
	return META_NONE;
}

/* The words of a meta-command after its name, up to its end. */
static void
read_words(Parse *p, Words *w, int start)
{
	int			ws;
	int			we;

	while (ScriptScanWord(&p->scan, &ws, &we))
	{
		if (w->n >= MAX_WORDS)
			raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0, HINT_META,
					 "too many arguments in \\%s", word(p, w, 0));
		w->start[w->n] = ws;
		w->end[w->n] = we;
		w->n++;
	}
}

static void
check_args(Parse *p, MetaKind meta, Words *w, int start)
{
	char	   *name = word(p, w, 0);

	if (meta == META_SLEEP && w->n < 2)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0,
				 "\\sleep takes an integer, or a :variable, and a unit: us, ms or s (the default).",
				 "missing argument in \\%s", name);
	if (meta == META_SLEEP && w->n > 3)
		raise_at(p, ERRCODE_SYNTAX_ERROR, w->start[3], 0,
				 "\\sleep takes an integer, or a :variable, and a unit: us, ms or s (the default).",
				 "too many arguments in \\%s", name);
	if (meta == META_SETSHELL && w->n < 3)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0, "\\setshell takes a variable and a command.",
				 "missing argument in \\%s", name);
	if (meta == META_SHELL && w->n < 2)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0, "\\shell takes a command.",
				 "missing command in \\%s", name);
	if ((meta == META_ELSE || meta == META_ENDIF || meta == META_STARTPIPELINE ||
		 meta == META_SYNCPIPELINE || meta == META_ENDPIPELINE) && w->n != 1)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0, HINT_META,
				 "unexpected argument in \\%s", name);
	if (meta == META_NONE)
		raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0, HINT_META,
				 "invalid command \\%s", name);
	if (meta == META_SHELL || meta == META_SETSHELL)
		note(p, ERRCODE_FEATURE_NOT_SUPPORTED, start,
			 "A script runs inside the server, where there is no shell: compute values with \\set, "
			 "or with SQL and \\gset.",
			 psprintf("\\%s cannot run in the server", name));
}

/* A meta-command: the scanner is just past its backslash. */
static void
parse_meta(Parse *p)
{
	int			start = p->scan.pos - 1;
	Words	   *w = &p->words;
	MetaKind	meta;
	ScriptCommand *cmd;
	static const ScriptCommandKind kinds[] = {
		[META_SLEEP] = SCMD_SLEEP, [META_ELSE] = SCMD_ELSE, [META_ENDIF] = SCMD_ENDIF,
		[META_STARTPIPELINE] = SCMD_START_PIPELINE, [META_SYNCPIPELINE] = SCMD_SYNC_PIPELINE,
		[META_ENDPIPELINE] = SCMD_END_PIPELINE, [META_SHELL] = SCMD_SHELL,
		[META_SETSHELL] = SCMD_SHELL,
	};

	w->n = 0;
	if (!ScriptScanWord(&p->scan, &w->start[0], &w->end[0]))
		return;					/* a backslash alone: nothing, as in pgbench */
	w->n = 1;
	meta = meta_kind(p->scan.text + w->start[0], w->end[0] - w->start[0]);

	if (meta == META_SET || meta == META_IF || meta == META_ELIF)
	{
		cmd = add_command(p, meta == META_SET ? SCMD_SET : meta == META_IF ? SCMD_IF : SCMD_ELIF,
						  start, p->scan.pos);
		if (meta == META_SET)
		{
			if (!ScriptScanWord(&p->scan, &w->start[1], &w->end[1]))
				raise_at(p, ERRCODE_SYNTAX_ERROR, start, 0,
						 "\\set takes a variable and an expression.", "missing argument in \\set");
			w->n = 2;
			cmd->variable = word(p, w, 1);
			if (!ScriptVariableNameValid(cmd->variable))
				note(p, ERRCODE_INVALID_NAME, w->start[1], HINT_NAME,
					 psprintf("invalid variable name \"%s\" in \\set", cmd->variable));
		}
		parse_expression(p, cmd, meta == META_SET ? "set" : meta == META_IF ? "if" : "elif");
		return;
	}

	read_words(p, w, start);
	check_args(p, meta, w, start);
	if (meta == META_GSET || meta == META_ASET)
	{
		attach_gset(p, w, start, meta == META_ASET);
		return;
	}
	cmd = add_command(p, kinds[meta], start, p->scan.pos);
	if (meta == META_SLEEP)
		parse_sleep(p, cmd, w);
}

/* -- whole-script checks ----------------------------------------------- */

/* pgbench's check of \if ... \endif, and where each branch goes on. */
static void
check_conditionals(Parse *p)
{
	ScriptProgram *prog = p->prog;
	ScriptCommand *c = prog->commands;
	int			open[SCRIPT_MAX_IF_DEPTH];
	int			last[SCRIPT_MAX_IF_DEPTH];
	bool		had_else[SCRIPT_MAX_IF_DEPTH];
	int			depth = 0;

	for (int i = 0; i < prog->ncommands; i++)
	{
		ScriptCommandKind kind = c[i].kind;

		if (kind == SCMD_IF)
		{
			prog->has_conditionals = true;
			if (depth == SCRIPT_MAX_IF_DEPTH)
				raise_at(p, ERRCODE_PROGRAM_LIMIT_EXCEEDED, c[i].offset, i + 1,
						 "Flatten the conditions with \\elif, or compute them with \\set.",
						 "\\if nested too deeply (at most %d levels)", SCRIPT_MAX_IF_DEPTH);
			open[depth] = last[depth] = i;
			had_else[depth++] = false;
			continue;
		}
		if (kind != SCMD_ELIF && kind != SCMD_ELSE && kind != SCMD_ENDIF)
			continue;
		if (depth == 0)
			raise_at(p, ERRCODE_SYNTAX_ERROR, c[i].offset, i + 1, HINT_IF,
					 "\\%s without matching \\if", ScriptCommandKindName(&c[i]));
		if (kind != SCMD_ENDIF && had_else[depth - 1])
			raise_at(p, ERRCODE_SYNTAX_ERROR, c[i].offset, i + 1, HINT_IF,
					 "\\%s after \\else", ScriptCommandKindName(&c[i]));
		c[last[depth - 1]].next_branch = i;
		last[depth - 1] = i;
		if (kind == SCMD_ELSE)
			had_else[depth - 1] = true;
		if (kind == SCMD_ENDIF)
		{
			depth--;
			for (int k = open[depth]; k != i; k = c[k].next_branch)
				c[k].endif = i;
			c[i].endif = open[depth];
			c[i].next_branch = -1;
		}
	}
	if (depth > 0)
		raise_at(p, ERRCODE_SYNTAX_ERROR, c[open[depth - 1]].offset, prog->ncommands + 1,
				 HINT_IF, "\\if without matching \\endif");
}

/* Pipelines, in the script's order; no \gset or \aset inside one. */
static void
check_pipelines(Parse *p)
{
	ScriptCommand *c = p->prog->commands;
	int			open = -1;

	for (int i = 0; i < p->prog->ncommands; i++)
	{
		switch (c[i].kind)
		{
			case SCMD_START_PIPELINE:
				p->prog->has_pipelines = true;
				if (open >= 0)
					note(p, ERRCODE_SYNTAX_ERROR, c[i].offset, HINT_PIPELINE,
						 "\\startpipeline inside a pipeline");
				open = i;
				break;
			case SCMD_SYNC_PIPELINE:
			case SCMD_END_PIPELINE:
				if (open < 0)
					note(p, ERRCODE_SYNTAX_ERROR, c[i].offset, HINT_PIPELINE,
						 psprintf("\\%s outside a pipeline", ScriptCommandKindName(&c[i])));
				if (c[i].kind == SCMD_END_PIPELINE)
					open = -1;
				break;
			case SCMD_SQL:
				c[i].sql.in_pipeline = open >= 0;
				if (open >= 0 && c[i].sql.gset != SGSET_NONE)
					note(p, ERRCODE_SYNTAX_ERROR, c[i].offset,
						 "A pipeline's results come at its end: set variables from a command outside it.",
						 c[i].sql.gset == SGSET_GSET ? "\\gset inside a pipeline" : "\\aset inside a pipeline");
				break;
			default:
				break;
		}
	}
	if (open >= 0)
		note(p, ERRCODE_SYNTAX_ERROR, c[open].offset, HINT_PIPELINE,
			 "\\startpipeline without \\endpipeline before the end of the script");
}

/* SQL through the server's parser, and the first run-time problem. */
static void
check_sql(Parse *p)
{
	ScriptProblemData pr;
	MemoryContext old;
	bool		ok;

	for (int i = 0; i < p->prog->ncommands; i++)
	{
		ScriptCommand *cmd = &p->prog->commands[i];

		if (cmd->kind != SCMD_SQL)
			continue;
		if (p->first.sqlstate != 0 && p->first.offset < cmd->offset + cmd->length)
			break;
		memset(&pr, 0, sizeof(pr));
		old = MemoryContextSwitchTo(p->scratch);
		ok = ScriptCheckSql(p->pieces[i], &cmd->sql, &pr);
		MemoryContextSwitchTo(old);
		if (!ok)
			raise_problem(p, &pr);
		if (cmd->sql.tx.savepoint != NULL)
			cmd->sql.tx.savepoint = pstrdup(cmd->sql.tx.savepoint);
		if (cmd->sql.tx.kind != STX_NONE)
			p->prog->has_transactions = true;
	}
	if (p->first.sqlstate != 0)
		raise_problem(p, &p->first);
}

/* A script without \if must not end inside a transaction block. */
static void
check_transactions(Parse *p)
{
	int			open = -1;

	if (p->prog->has_conditionals)
		return;
	for (int i = 0; i < p->prog->ncommands; i++)
	{
		ScriptTx   *tx = &p->prog->commands[i].sql.tx;

		if (p->prog->commands[i].kind != SCMD_SQL)
			continue;
		if (tx->kind == STX_BEGIN && open < 0)
			open = i;
		else if ((tx->kind == STX_COMMIT || tx->kind == STX_ROLLBACK) && !tx->chain)
			open = -1;
	}
	if (open >= 0)
		raise_at(p, ERRCODE_INVALID_TRANSACTION_STATE, p->prog->commands[open].offset, 0,
				 "End the transaction with COMMIT (or END, or ROLLBACK) before the end of the script, as pgbench requires.",
				 "the script ends inside the transaction block this command begins");
}

/*
 * Parses a pgbench script into a program, in the current memory context;
 * a bad script is an ERROR naming the script, the line and the column.
 */
ScriptProgram *
ScriptParse(const char *name, const char *text)
{
	Parse		p;
	ScriptProgram *prog = palloc0(sizeof(ScriptProgram));
	int			len = strlen(text);

	memset(&p, 0, sizeof(p));
	p.prog = prog;
	p.line = 1;
	prog->name = pnstrdup(name, pg_mbcliplen(name, strlen(name), 200));
	if (len > SCRIPT_MAX_LENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("script \"%s\" is too long (%d bytes, at most %d)",
						prog->name, len, SCRIPT_MAX_LENGTH),
				 errhint("Split it into several scripts.")));
	prog->source = pstrdup(text);
	p.scan.text = prog->source;
	p.scan.len = len;
	p.scan.std_strings = standard_conforming_strings;
	p.maxcommands = 16;
	prog->commands = palloc(p.maxcommands * sizeof(ScriptCommand));
	p.scratch = AllocSetContextCreate(CurrentMemoryContext, "pgbench_lab script parse",
									  ALLOCSET_DEFAULT_SIZES);
	p.pieces = MemoryContextAlloc(p.scratch, p.maxcommands * sizeof(ScriptSqlPiece *));

	for (;;)
	{
		MemoryContext old = MemoryContextSwitchTo(p.scratch);
		ScriptSqlPiece *piece = palloc(sizeof(ScriptSqlPiece));
		ScriptScanStop stop;

		CHECK_FOR_INTERRUPTS();
		stop = ScriptScanSql(&p.scan, piece);
		MemoryContextSwitchTo(old);
		if (piece->start >= 0)
			add_sql(&p, piece);
		if (stop == SSCAN_BACKSLASH)
			parse_meta(&p);
		else if (stop == SSCAN_END)
			break;
	}
	prog->ntext_refs = p.scan.ntext_refs;
	prog->text_refs = palloc((p.scan.ntext_refs + 1) * sizeof(char *));
	for (int i = 0; i < p.scan.ntext_refs; i++)
		prog->text_refs[i] = pstrdup(p.scan.text_refs[i]);

	if (prog->ncommands == 0)
		raise_at(&p, ERRCODE_SYNTAX_ERROR, 0, 0,
				 "A script holds SQL commands, each ended by a semicolon, and meta-commands such as \\set.",
				 "the script has no command");
	check_conditionals(&p);
	check_pipelines(&p);
	check_sql(&p);
	check_transactions(&p);
	MemoryContextDelete(p.scratch);
	return prog;
}

const char *
ScriptCommandKindName(const ScriptCommand *cmd)
{
	static const char *const tx_names[] = {
		[STX_NONE] = "sql", [STX_BEGIN] = "begin", [STX_COMMIT] = "commit",
		[STX_ROLLBACK] = "rollback", [STX_SAVEPOINT] = "savepoint",
		[STX_RELEASE] = "release", [STX_ROLLBACK_TO] = "rollback to",
	};
	static const char *const names[] = {
		[SCMD_SQL] = "sql", [SCMD_SET] = "set", [SCMD_SLEEP] = "sleep", [SCMD_IF] = "if",
		[SCMD_ELIF] = "elif", [SCMD_ELSE] = "else", [SCMD_ENDIF] = "endif",
		[SCMD_START_PIPELINE] = "startpipeline", [SCMD_SYNC_PIPELINE] = "syncpipeline",
		[SCMD_END_PIPELINE] = "endpipeline", [SCMD_SHELL] = "shell",
	};

	if (cmd->kind == SCMD_SQL)
		return tx_names[cmd->sql.tx.kind];
	return names[cmd->kind];
}
