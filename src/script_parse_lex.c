/*-------------------------------------------------------------------------
 *
 * script_parse_lex.c
 *		The lexical side of pgbench scripts: where an SQL command ends,
 *		which of its colons are variables, the words of a meta-command,
 *		and the check of each SQL command by PostgreSQL's raw parser.
 *
 * An SQL command ends where pgbench's (psql's) lexer ends it: at a
 * semicolon outside quotes, comments and parentheses (and outside the
 * BEGIN ... END of a CREATE FUNCTION's SQL body), at a backslash that
 * starts a meta-command, or at the end of the script; "\;" is a semicolon
 * that does not end it (a compound of several statements) and "\:" a
 * colon that starts no variable, as in psql.  Leading white space and
 * "--" comments are not part of it.
 *
 * Variables are where pgbench's lexer leaves SQL text alone: ":name" (a
 * letter or underscore first, then letters, digits and underscores, as
 * pgbench reads them; "::" is a cast) becomes the bind parameter $n, one
 * per reference as pgbench -M extended numbers them, and psql's ":'name'"
 * a parameter of unknown type.  Unlike pgbench, which finds variables by
 * looking for colons anywhere in the text, a ":name" inside a string, a
 * quoted identifier, a dollar quote or a comment stays text there: a bind
 * parameter cannot stand inside a literal.  Those are listed (pgbench's
 * -M simple would paste a defined variable's text there, -M extended
 * fails), so that a DBA can see them.  ":\"name\"" (an identifier) cannot
 * be a parameter at all and is refused, and so is a $n written in the
 * script, which would collide with the parameters' numbers.
 *
 * The text is then parsed by raw_parser(), as the interpreter will
 * prepare it: a syntax error, or a :variable where no value can go
 * (pgbench -M simple pastes text there; a parameter is a value), is an
 * error at the script's line and column before anything runs.  The parse
 * also says how many statements a compound has and which commands are
 * transaction control.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "utils/elog.h"
#include "utils/memutils.h"

#include "script_parse.h"

#define HINT_PARAMETER "Variables are passed as bind parameters, each standing for one value; " \
	"pgbench's -M simple pastes their text, which pgbench_lab never does.  " \
	"Use a variable where a value goes, or choose among commands with \\if."

static inline bool
is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		IS_HIGHBIT_SET(c);
}

static inline bool
is_ident_cont(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static inline bool
is_sql_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* -- building the command's text ------------------------------------- */

static void
add_segment(ScriptSqlPiece *piece, int in, bool subst)
{
	if (piece->nsegs == piece->maxsegs)
	{
		piece->maxsegs = Max(8, piece->maxsegs * 2);
		piece->segs = piece->segs ? repalloc(piece->segs, piece->maxsegs * sizeof(ScriptSegment))
			: palloc(piece->maxsegs * sizeof(ScriptSegment));
	}
	piece->segs[piece->nsegs].out = piece->text.len;
	piece->segs[piece->nsegs].in = in;
	piece->segs[piece->nsegs].subst = subst;
	piece->nsegs++;
}

/* Replaces script[at, at + len) with repl in the command's text. */
static void
substitute(ScriptScan *scan, ScriptSqlPiece *piece, int at, int len, const char *repl)
{
	appendBinaryStringInfo(&piece->text, scan->text + piece->copied, at - piece->copied);
	add_segment(piece, at, true);
	appendStringInfoString(&piece->text, repl);
	piece->copied = at + len;
	add_segment(piece, piece->copied, false);
}

/* The script offset a byte of the command's text comes from. */
int
ScriptSqlOrigin(const ScriptSqlPiece *piece, int out)
{
	int			k = piece->nsegs - 1;

	while (k > 0 && piece->segs[k].out > out)
		k--;
	if (piece->segs[k].subst)
		return piece->segs[k].in;
	return piece->segs[k].in + (out - piece->segs[k].out);
}

static void
note_text_ref(ScriptScan *scan, const char *name, int len)
{
	for (int i = 0; i < scan->ntext_refs; i++)
	{
		if (strlen(scan->text_refs[i]) == len && strncmp(scan->text_refs[i], name, len) == 0)
			return;
	}
	if (scan->ntext_refs >= SCRIPT_MAX_TEXT_REFS)
		return;
	if (scan->text_refs == NULL)
		scan->text_refs = palloc(SCRIPT_MAX_TEXT_REFS * sizeof(char *));
	scan->text_refs[scan->ntext_refs++] = pnstrdup(name, len);
}

/* The ":name"s that pgbench would see inside script[from, to). */
static void
find_text_refs(ScriptScan *scan, int from, int to)
{
	const char *s = scan->text;

	for (int i = from; i + 1 < to; i++)
	{
		int			j;

		if (s[i] != ':' || (i > 0 && s[i - 1] == ':') || !is_ident_start(s[i + 1]))
			continue;
		for (j = i + 1; j < to && is_ident_cont(s[j]); j++)
			;
		note_text_ref(scan, s + i + 1, j - i - 1);
		i = j - 1;
	}
}

/* -- the SQL lexer ---------------------------------------------------- */

/* The end of a quoted string starting at its quote; escapes: E'...'. */
static int
skip_string(ScriptScan *scan, int pos, bool escapes)
{
	const char *s = scan->text;

	for (pos++; pos < scan->len; pos++)
	{
		if (escapes && s[pos] == '\\')
			pos++;
		else if (s[pos] == '\'')
		{
			if (pos + 1 < scan->len && s[pos + 1] == '\'')
				pos++;
			else
				return pos + 1;
		}
	}
	return scan->len;
}

static int
skip_quoted_ident(ScriptScan *scan, int pos)
{
	const char *s = scan->text;

	for (pos++; pos < scan->len; pos++)
	{
		if (s[pos] == '"')
		{
			if (pos + 1 < scan->len && s[pos + 1] == '"')
				pos++;
			else
				return pos + 1;
		}
	}
	return scan->len;
}

/* A nested C-style comment starting at its slash. */
static int
skip_block_comment(ScriptScan *scan, int pos)
{
	const char *s = scan->text;
	int			depth = 0;

	for (pos += 2; pos < scan->len; pos++)
	{
		if (s[pos] == '/' && pos + 1 < scan->len && s[pos + 1] == '*')
		{
			depth++;
			pos++;
		}
		else if (s[pos] == '*' && pos + 1 < scan->len && s[pos + 1] == '/')
		{
			if (depth-- == 0)
				return pos + 2;
			pos++;
		}
	}
	return scan->len;
}

static int
skip_line_comment(ScriptScan *scan, int pos)
{
	while (pos < scan->len && scan->text[pos] != '\n' && scan->text[pos] != '\r')
		pos++;
	return pos;
}

/* Length of the $tag$ delimiter at pos, or 0 if there is none. */
static int
dollar_delimiter(ScriptScan *scan, int pos)
{
	const char *s = scan->text;
	int			i = pos + 1;

	if (i < scan->len && is_ident_start(s[i]))
	{
		for (i++; i < scan->len && is_ident_cont(s[i]); i++)
			;
	}
	if (i < scan->len && s[i] == '$')
		return i + 1 - pos;
	return 0;
}

static int
skip_dollar_quote(ScriptScan *scan, int pos, int dlen)
{
	const char *s = scan->text;

	for (int i = pos + dlen; i + dlen <= scan->len; i++)
	{
		if (s[i] == '$' && strncmp(s + i, s + pos, dlen) == 0)
			return i + dlen;
	}
	return scan->len;
}

/*
 * psql's test for a CREATE FUNCTION or PROCEDURE whose SQL body's
 * semicolons, between BEGIN and END, do not end the command: the first
 * words' initials, and BEGIN, CASE and END counted outside parentheses.
 */
static void
track_word(ScriptScan *scan, ScriptSqlState *st, int start, int len)
{
	static const char *const words[] = {"create", "function", "procedure", "or", "replace"};
	const char *w = scan->text + start;

	if (st->nwords == 0)
		memset(st->initials, 0, sizeof(st->initials));
	for (int k = 0; k < lengthof(words); k++)
	{
		if (strlen(words[k]) == len && pg_strncasecmp(w, words[k], len) == 0 &&
			st->nwords < sizeof(st->initials))
			st->initials[st->nwords] = words[k][0];
	}
	st->nwords++;
	if (st->initials[0] == 'c' && st->paren_depth == 0 &&
		(st->initials[1] == 'f' || st->initials[1] == 'p' ||
		 (st->initials[1] == 'o' && st->initials[2] == 'r' &&
		  (st->initials[3] == 'f' || st->initials[3] == 'p'))))
	{
		if (len == 5 && pg_strncasecmp(w, "begin", 5) == 0)
			st->begin_depth++;
		else if (len == 4 && pg_strncasecmp(w, "case", 4) == 0)
		{
			if (st->begin_depth > 0)
				st->begin_depth++;
		}
		else if (len == 3 && pg_strncasecmp(w, "end", 3) == 0)
		{
			if (st->begin_depth > 0)
				st->begin_depth--;
		}
	}
}

static void
note_problem(ScriptSqlPiece *piece, int sqlstate, int offset, const char *hint,
			 const char *message)
{
	if (piece->problem_sqlstate != 0)
		return;
	piece->problem_sqlstate = sqlstate;
	piece->problem_offset = offset;
	piece->problem_hint = hint;
	piece->problem_message = pstrdup(message);
}

static void
add_param(ScriptScan *scan, ScriptSqlPiece *piece, int at, int len,
		  const char *name, int namelen, ScriptParamMode mode)
{
	char		ref[16];

	if (piece->nparams == piece->maxparams)
	{
		piece->maxparams = Max(8, piece->maxparams * 2);
		piece->params = piece->params ?
			repalloc(piece->params, piece->maxparams * sizeof(ScriptParam)) :
			palloc(piece->maxparams * sizeof(ScriptParam));
		piece->param_offsets = piece->param_offsets ?
			repalloc(piece->param_offsets, piece->maxparams * sizeof(int)) :
			palloc(piece->maxparams * sizeof(int));
	}
	piece->params[piece->nparams].name = pnstrdup(name, namelen);
	piece->params[piece->nparams].mode = mode;
	piece->param_offsets[piece->nparams] = at;
	piece->nparams++;
	snprintf(ref, sizeof(ref), "$%d", piece->nparams);
	substitute(scan, piece, at, len, ref);
}

/* At a colon: a variable, a cast, or a colon; returns where to go on. */
static int
scan_colon(ScriptScan *scan, ScriptSqlPiece *piece, int pos)
{
	const char *s = scan->text;
	int			i = pos + 1;
	char		quote;

	if (i < scan->len && s[i] == ':')
	{
		/* a cast: pgbench takes no variable after a run of colons */
		while (i < scan->len && s[i] == ':')
			i++;
		return i;
	}
	if (i < scan->len && is_ident_start(s[i]))
	{
		for (i++; i < scan->len && is_ident_cont(s[i]); i++)
			;
		add_param(scan, piece, pos, i - pos, s + pos + 1, i - pos - 1, SPARAM_VALUE);
		return i;
	}
	if (i >= scan->len || (s[i] != '\'' && s[i] != '"'))
		return i;

	/* psql's :'name' and :"name" */
	quote = s[i];
	for (i++; i < scan->len && is_ident_cont(s[i]); i++)
		;
	if (i >= scan->len || s[i] != quote || i == pos + 2)
		return pos + 1;			/* not one: the colon alone */
	if (quote == '"')
		note_problem(piece, ERRCODE_FEATURE_NOT_SUPPORTED, pos,
					 "A bind parameter stands for a value, never for a name, and pgbench itself "
					 "sends :\"name\" to the server as it is.  Write the name in the script, "
					 "or choose among commands with \\if.",
					 psprintf("identifier variable :\"%.*s\" cannot be passed as a bind parameter",
							  i - pos - 2, s + pos + 2));
	else if (s[pos + 2] >= '0' && s[pos + 2] <= '9')
		note_problem(piece, ERRCODE_INVALID_NAME, pos,
					 "A variable's name is letters, digits and underscores, not a digit first.",
					 psprintf("invalid variable name \"%.*s\"", i - pos - 2, s + pos + 2));
	else
		add_param(scan, piece, pos, i + 1 - pos, s + pos + 2, i - pos - 2, SPARAM_LITERAL);
	return i + 1;
}

/* At a letter: a string's prefix (E'', B'', X'', N'', U&'', U&""), or a word. */
static int
scan_word(ScriptScan *scan, ScriptSqlPiece *piece, ScriptSqlState *st, int pos)
{
	const char *s = scan->text;
	char		c = s[pos] | 0x20;
	char		next = pos + 1 < scan->len ? s[pos + 1] : '\0';
	int			i;

	if (next == '\'' && (c == 'e' || c == 'b' || c == 'x' || c == 'n'))
	{
		i = skip_string(scan, pos + 1, c == 'e' || (c == 'n' && !scan->std_strings));
		find_text_refs(scan, pos + 2, i);
		return i;
	}
	if (c == 'u' && next == '&' && pos + 2 < scan->len &&
		(s[pos + 2] == '\'' || s[pos + 2] == '"'))
	{
		i = s[pos + 2] == '"' ? skip_quoted_ident(scan, pos + 2) : skip_string(scan, pos + 2, false);
		find_text_refs(scan, pos + 3, i);
		return i;
	}
	for (i = pos + 1; i < scan->len && (is_ident_cont(s[i]) || s[i] == '$'); i++)
		;
	track_word(scan, st, pos, i - pos);
	return i;
}

/*
 * One token (or quoted thing) at pos; returns where the next starts, or
 * -1 at a semicolon that ends the command, or -2 at a backslash that
 * starts a meta-command.
 */
static int
scan_token(ScriptScan *scan, ScriptSqlPiece *piece, ScriptSqlState *st, int pos)
{
	const char *s = scan->text;
	char		c = s[pos];
	char		next = pos + 1 < scan->len ? s[pos + 1] : '\0';
	int			i;

	if (c == '-' && next == '-')
	{
		i = skip_line_comment(scan, pos);
		find_text_refs(scan, pos, i);
		return i;
	}
	if (c == '/' && next == '*')
	{
		i = skip_block_comment(scan, pos);
		find_text_refs(scan, pos, i);
		return i;
	}
	if (c == '\'' || c == '"')
	{
		i = c == '"' ? skip_quoted_ident(scan, pos) : skip_string(scan, pos, !scan->std_strings);
		find_text_refs(scan, pos + 1, i);
		return i;
	}
	if (c == '$')
	{
		int			dlen = dollar_delimiter(scan, pos);

		if (dlen > 0)
		{
			i = skip_dollar_quote(scan, pos, dlen);
			find_text_refs(scan, pos + dlen, i);
			return i;
		}
		if (next >= '0' && next <= '9')
			note_problem(piece, ERRCODE_SYNTAX_ERROR, pos,
						 "Write variables as :name; pgbench_lab numbers the bind parameters itself.",
						 "a parameter symbol such as $1 cannot be written in a script");
		return pos + 1;
	}
	if (c == ':')
		return scan_colon(scan, piece, pos);
	if (c == '\\')
	{
		if (next == ';' || next == ':')
		{
			/* psql's escaped semicolon (a compound) and colon (no variable) */
			substitute(scan, piece, pos, 2, next == ';' ? ";" : ":");
			if (next == ';')
				st->nwords = 0;
			return pos + 2;
		}
		return -2;
	}
	if (c == ';')
		return (st->paren_depth == 0 && st->begin_depth == 0) ? -1 : pos + 1;
	if (c == '(')
		st->paren_depth++;
	else if (c == ')' && st->paren_depth > 0)
		st->paren_depth--;
	else if (c >= '0' && c <= '9')
	{
		/*
		 * A number, and the letters after it (psql's "junk" after a numeric
		 * literal, with any $ in them); but "1$$" is 1 and a dollar quote.
		 */
		bool		letters = false;

		for (i = pos + 1; i < scan->len; i++)
		{
			if (is_ident_start(s[i]))
				letters = true;
			else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '.' && !(letters && s[i] == '$'))
				break;
		}
		return i;
	}
	else if (is_ident_start(c))
		return scan_word(scan, piece, st, pos);
	return pos + 1;
}

/*
 * Scans one SQL command from the scanner's position: piece->start is -1
 * if there is none (only white space and "--" comments).  Returns what
 * ended it; the scanner is then past it (past the backslash of a
 * meta-command).  As in pgbench, the parentheses and words counted go on
 * across a meta-command.
 */
ScriptScanStop
ScriptScanSql(ScriptScan *scan, ScriptSqlPiece *piece)
{
	ScriptSqlState *st = &scan->sql;
	int			pos = scan->pos;
	ScriptScanStop stop = SSCAN_END;

	memset(piece, 0, sizeof(*piece));
	piece->start = -1;
	initStringInfo(&piece->text);

	/* leading white space and "--" comments are no part of the command */
	while (pos < scan->len)
	{
		if (is_sql_space(scan->text[pos]))
			pos++;
		else if (scan->text[pos] == '-' && pos + 1 < scan->len && scan->text[pos + 1] == '-')
			pos = skip_line_comment(scan, pos);
		else
			break;
	}
	piece->copied = pos;
	add_segment(piece, pos, false);

	while (pos < scan->len)
	{
		int			next = scan_token(scan, piece, st, pos);

		if (piece->start < 0 && next != -2)
			piece->start = pos;
		if (next == -1)
		{
			pos++;
			st->nwords = 0;
			stop = SSCAN_SEMICOLON;
			break;
		}
		if (next == -2)
		{
			stop = SSCAN_BACKSLASH;
			break;
		}
		pos = next;
	}
	piece->end = Min(pos, scan->len);
	appendBinaryStringInfo(&piece->text, scan->text + piece->copied, piece->end - piece->copied);
	while (piece->text.len > 0 && is_sql_space(piece->text.data[piece->text.len - 1]))
		piece->text.data[--piece->text.len] = '\0';
	scan->pos = stop == SSCAN_BACKSLASH ? pos + 1 : pos;
	return stop;
}

/* -- meta-commands ---------------------------------------------------- */

static inline bool
is_word_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * The next word of a meta-command, as pgbench's lexer reads them: bytes
 * that are no space, a backslash at the end of a line continuing the
 * command.  False at the end of the command (the newline is consumed).
 */
bool
ScriptScanWord(ScriptScan *scan, int *start, int *end)
{
	const char *s = scan->text;
	int			pos = scan->pos;

	for (;;)
	{
		if (pos < scan->len && is_word_space(s[pos]))
			pos++;
		else if (pos + 1 < scan->len && s[pos] == '\\' && s[pos + 1] == '\n')
			pos += 2;
		else
			break;
	}
	if (pos >= scan->len || s[pos] == '\n')
	{
		scan->pos = Min(pos + 1, scan->len);
		return false;
	}
	*start = pos;
	while (pos < scan->len && s[pos] != '\n' && !is_word_space(s[pos]))
		pos++;
	*end = pos;
	if (pos < scan->len && s[pos] == '\n' && s[pos - 1] == '\\')
	{
		/* "word\" at the end of a line: the word, then a continuation */
		(*end)--;
		pos++;
	}
	scan->pos = pos;
	return true;
}

/*
 * Where the expression that starts at the scanner's position ends: at
 * the first newline that no backslash continues (the newline is consumed).
 */
int
ScriptScanLineEnd(ScriptScan *scan)
{
	const char *s = scan->text;
	int			pos;

	for (pos = scan->pos; pos < scan->len; pos++)
	{
		if (s[pos] != '\n')
			continue;
		if (pos > 0 && s[pos - 1] == '\\')
			continue;
		if (pos > 1 && s[pos - 1] == '\r' && s[pos - 2] == '\\')
			continue;
		break;
	}
	scan->pos = Min(pos + 1, scan->len);
	return pos;
}

/* -- the check by PostgreSQL's parser --------------------------------- */

/* The byte offset of the 1-based character position of an error. */
static int
cursor_offset(const char *text, int cursorpos)
{
	int			off = 0;
	int			len = strlen(text);

	for (int ch = 1; ch < cursorpos && off < len; ch++)
		off += pg_mblen(text + off);
	return Min(off, len);
}

static void
read_tx(TransactionStmt *stmt, ScriptTx *tx)
{
	ListCell   *lc;

	tx->isolation = tx->read_only = tx->deferrable = -1;
	tx->chain = stmt->chain;
	tx->savepoint = stmt->savepoint_name ? pstrdup(stmt->savepoint_name) : NULL;
	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);
		A_Const    *arg = (A_Const *) opt->arg;

		if (arg == NULL || !IsA(arg, A_Const))
			continue;
		if (strcmp(opt->defname, "transaction_isolation") == 0)
		{
			const char *level = arg->val.sval.sval;

			tx->isolation = strcmp(level, "serializable") == 0 ? XACT_SERIALIZABLE :
				strcmp(level, "repeatable read") == 0 ? XACT_REPEATABLE_READ :
				strcmp(level, "read uncommitted") == 0 ? XACT_READ_UNCOMMITTED :
				XACT_READ_COMMITTED;
		}
		else if (strcmp(opt->defname, "transaction_read_only") == 0)
			tx->read_only = arg->val.ival.ival != 0;
		else if (strcmp(opt->defname, "transaction_deferrable") == 0)
			tx->deferrable = arg->val.ival.ival != 0;
	}
	switch (stmt->kind)
	{
		case TRANS_STMT_BEGIN:
		case TRANS_STMT_START:
			tx->kind = STX_BEGIN;
			break;
		case TRANS_STMT_COMMIT:
			tx->kind = STX_COMMIT;
			break;
		case TRANS_STMT_ROLLBACK:
			tx->kind = STX_ROLLBACK;
			break;
		case TRANS_STMT_SAVEPOINT:
			tx->kind = STX_SAVEPOINT;
			break;
		case TRANS_STMT_RELEASE:
			tx->kind = STX_RELEASE;
			break;
		case TRANS_STMT_ROLLBACK_TO:
			tx->kind = STX_ROLLBACK_TO;
			break;
		default:
			tx->kind = STX_NONE;	/* two-phase commit: refused by the caller */
			break;
	}
}

/*
 * Parses the command's text with raw_parser(): its statements, its
 * transaction control; false with *problem set (at an offset in the
 * script) if the server would refuse it.
 */
bool
ScriptCheckSql(const ScriptSqlPiece *piece, ScriptSql *sql, ScriptProblemData *problem)
{
	MemoryContext cxt = CurrentMemoryContext;
	ErrorContextCallback *callers = error_context_stack;
	ErrorData  *edata = NULL;
	List	   *stmts = NIL;
	ListCell   *lc;

	/*
	 * The error's position must stay the one in this text: a caller's
	 * context (SPI's, when script_parse() runs inside a function) would move
	 * it to its own query's.  The raw parser holds nothing but memory, so
	 * its error is caught, and turned into the script's by the caller.
	 */
	error_context_stack = NULL;
	PG_TRY();
	{
		stmts = raw_parser(sql->text, RAW_PARSE_DEFAULT);
	}
	PG_CATCH();
	{
		error_context_stack = callers;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
	}
	PG_END_TRY();
	error_context_stack = callers;

	if (edata != NULL)
	{
		int			out = cursor_offset(sql->text, edata->cursorpos);
		int			at = edata->cursorpos > 0 ? ScriptSqlOrigin(piece, out) : piece->start;

		problem->sqlstate = edata->sqlerrcode;
		problem->offset = at;
		problem->hint = edata->hint ? pstrdup(edata->hint) :
			"The SQL commands of a script are PostgreSQL's SQL, each ended by a semicolon.";
		problem->message = pstrdup(edata->message);
		for (int i = 0; i < piece->nparams; i++)
		{
			if (piece->param_offsets[i] == at)
			{
				problem->message = psprintf("variable :%s is where a bind parameter cannot go",
											piece->params[i].name);
				problem->hint = HINT_PARAMETER;
			}
		}
		FreeErrorData(edata);
		return false;
	}

	sql->nstatements = list_length(stmts);
	foreach(lc, stmts)
	{
		RawStmt    *raw = lfirst_node(RawStmt, lc);
		int			at = ScriptSqlOrigin(piece, raw->stmt_location);

		if (!IsA(raw->stmt, TransactionStmt))
			continue;
		read_tx((TransactionStmt *) raw->stmt, &sql->tx);
		if (sql->tx.kind == STX_NONE)
		{
			problem->sqlstate = ERRCODE_FEATURE_NOT_SUPPORTED;
			problem->offset = at;
			problem->message = "two-phase commit commands cannot run in a script";
			problem->hint = "The script interpreter runs transactions in background workers, which cannot prepare them for two-phase commit.";
			return false;
		}
		if (sql->nstatements > 1)
		{
			problem->sqlstate = ERRCODE_FEATURE_NOT_SUPPORTED;
			problem->offset = at;
			problem->message = "transaction control cannot be part of a \\; compound";
			problem->hint = "Write BEGIN, COMMIT, ROLLBACK and savepoint commands as commands of their own.";
			return false;
		}
	}
	return true;
}
