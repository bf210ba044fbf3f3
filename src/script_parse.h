/*-------------------------------------------------------------------------
 *
 * script_parse.h
 *		pgbench script files parsed in the server: a script's text turned
 *		into the program the script interpreter runs.
 *
 * A script is parsed once, in the session that launches a run (or checks
 * a script), into memory the caller owns (the current memory context).
 * Parsing is no hot path, and it hands every SQL command to PostgreSQL's
 * own raw parser, which throws: so ScriptParse() reports a bad script by
 * ereport(ERROR) itself, with the script's name, the line and the column
 * pgbench reports, a SQLSTATE and a hint: 42601 for syntax (or the raw
 * parser's own), 0A000 for what cannot run in the server, 42602 for an
 * invalid variable name, 25000 for a transaction left open, 54000 and
 * 54023 for the limits below.
 *
 * The program is pgbench's list of commands, numbered as pgbench numbers
 * them (\gset and \aset are no commands of their own: they belong to the
 * SQL command before them).  What pgbench leaves to run time and can be
 * known from the text is checked here too, so that no run starts with a
 * script that cannot work: SQL syntax, bind parameters where no value can
 * go, \if nesting, pipelines, a transaction left open at the end.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGBL_SCRIPT_PARSE_H
#define PGBL_SCRIPT_PARSE_H

#include "script_expr.h"

/* Limits, each with its own error (pgbench has the last one only). */
#define SCRIPT_MAX_LENGTH	(1024 * 1024)	/* bytes of a script */
#define SCRIPT_MAX_COMMANDS 10000	/* commands of a script */
#define SCRIPT_MAX_IF_DEPTH 64	/* \if nested in \if */
#define SCRIPT_MAX_PARAMS	255 /* :variables in one SQL command, as
								 * pgbench -M extended */

typedef enum ScriptCommandKind
{
	SCMD_SQL,
	SCMD_SET,
	SCMD_SLEEP,
	SCMD_IF,
	SCMD_ELIF,
	SCMD_ELSE,
	SCMD_ENDIF,
	SCMD_START_PIPELINE,
	SCMD_SYNC_PIPELINE,
	SCMD_END_PIPELINE,
	SCMD_SHELL					/* \shell, \setshell: refused, so never in a
								 * program; counted while parsing, as pgbench
								 * numbers commands */
} ScriptCommandKind;

/*
 * An SQL command that is transaction control: the interpreter runs it
 * with its own transaction control, never as SQL.
 */
typedef enum ScriptTxKind
{
	STX_NONE,
	STX_BEGIN,					/* BEGIN, START TRANSACTION */
	STX_COMMIT,					/* COMMIT, END */
	STX_ROLLBACK,				/* ROLLBACK, ABORT */
	STX_SAVEPOINT,
	STX_RELEASE,
	STX_ROLLBACK_TO
} ScriptTxKind;

typedef struct ScriptTx
{
	ScriptTxKind kind;
	int			isolation;		/* BEGIN: XACT_READ_COMMITTED ..., or -1 */
	int			read_only;		/* BEGIN: 1, 0, or -1 when not given */
	int			deferrable;		/* BEGIN: 1, 0, or -1 when not given */
	bool		chain;			/* COMMIT or ROLLBACK AND CHAIN */
	char	   *savepoint;		/* the savepoint commands' name */
} ScriptTx;

/*
 * How a :variable is passed.  Both are a bind parameter holding the
 * variable's text (never text pasted into the SQL): ":name" is a value,
 * which the interpreter may type from the variable's value as pgbench's
 * -M simple would read the number it pastes; ":'name'" (psql's quoted
 * literal) is always of unknown type, as a quoted literal is.
 */
typedef enum ScriptParamMode
{
	SPARAM_VALUE,
	SPARAM_LITERAL
} ScriptParamMode;

typedef struct ScriptParam
{
	char	   *name;			/* the variable */
	ScriptParamMode mode;
} ScriptParam;

typedef enum ScriptGset
{
	SGSET_NONE,
	SGSET_GSET,					/* \gset: the last result's one row */
	SGSET_ASET					/* \aset: every result's rows */
} ScriptGset;

typedef struct ScriptSql
{
	char	   *text;			/* with $1 .. $n for the variables */
	int			nparams;
	ScriptParam *params;		/* $1 .. $n: one per reference, as pgbench */
	int			nstatements;	/* 1; more for a \; compound; 0 if empty */
	ScriptTx	tx;
	ScriptGset	gset;
	char	   *gset_prefix;	/* "" when none */
	bool		in_pipeline;	/* between \startpipeline and \endpipeline */
} ScriptSql;

typedef struct ScriptCommand
{
	ScriptCommandKind kind;
	int			line;			/* 1-based, of the command's first byte */
	int			column;			/* 1-based byte column of it */
	int			offset;			/* the command's bytes in the script */
	int			length;
	ScriptSql	sql;			/* SCMD_SQL */
	char	   *variable;		/* \set's variable; \sleep's :variable */
	ScriptExpr *expr;			/* \set, \if, \elif */
	char	   *expr_text;
	int64		sleep_value;	/* \sleep with a constant */
	int64		sleep_unit_usec;	/* \sleep: microseconds per unit */
	int			next_branch;	/* \if, \elif: index of the next \elif,
								 * \else or \endif */
	int			endif;			/* \if, \elif, \else: index of the \endif;
								 * \endif: index of its \if */
} ScriptCommand;

typedef struct ScriptProgram
{
	char	   *name;
	char	   *source;			/* the script's text, which offsets index */
	int			ncommands;
	ScriptCommand *commands;
	bool		has_transactions;	/* any BEGIN, COMMIT, ROLLBACK...: else
									 * each SQL command is a transaction */
	bool		has_conditionals;
	bool		has_pipelines;
	int			ntext_refs;
	char	  **text_refs;		/* ":name" found in strings, quoted
								 * identifiers and comments: kept as text
								 * (pgbench -M simple would paste there) */
} ScriptProgram;

/* script_parse.c */
extern ScriptProgram *ScriptParse(const char *name, const char *text);
extern const char *ScriptCommandKindName(const ScriptCommand *cmd);

/*
 * ------------------------------------------------------------------------
 * Shared by the script_parse*.c files only
 * ------------------------------------------------------------------------
 */

#include "lib/stringinfo.h"

#define SCRIPT_MAX_TEXT_REFS 64 /* ":name"s inside literals listed */

/* From this byte of a command's text on, bytes come from the script's "in" */
typedef struct ScriptSegment
{
	int			out;
	int			in;
	bool		subst;			/* a replacement ($n): all of it maps to "in" */
} ScriptSegment;

/* psql's state while it looks for the end of an SQL command */
typedef struct ScriptSqlState
{
	int			paren_depth;
	int			begin_depth;	/* BEGIN ... END of a CREATE FUNCTION's body */
	int			nwords;
	char		initials[4];
} ScriptSqlState;

typedef struct ScriptScan
{
	const char *text;
	int			len;
	int			pos;			/* where scanning goes on */
	bool		std_strings;	/* standard_conforming_strings */
	ScriptSqlState sql;
	int			ntext_refs;
	char	  **text_refs;
} ScriptScan;

/* A first problem that pgbench would meet only at run time. */
typedef struct ScriptProblemData
{
	int			sqlstate;		/* 0: none */
	int			offset;			/* where, in the script */
	int			command;		/* pgbench's number of the command, or 0 */
	const char *message;
	const char *hint;
} ScriptProblemData;

/* One SQL command as scanned, before it becomes a ScriptCommand. */
typedef struct ScriptSqlPiece
{
	int			start;			/* its first byte, -1 if there is none */
	int			end;			/* one past its last byte */
	StringInfoData text;		/* with $n */
	int			copied;			/* script bytes up to here are in text */
	int			nsegs;
	int			maxsegs;
	ScriptSegment *segs;
	int			nparams;
	int			maxparams;
	ScriptParam *params;
	int		   *param_offsets;	/* where each parameter's ":" is */
	int			problem_sqlstate;	/* the first :"name" or $n, 0 if none */
	int			problem_offset;
	const char *problem_hint;
	char	   *problem_message;
} ScriptSqlPiece;

typedef enum ScriptScanStop
{
	SSCAN_SEMICOLON,
	SSCAN_BACKSLASH,
	SSCAN_END
} ScriptScanStop;

/* script_parse_lex.c */
extern ScriptScanStop ScriptScanSql(ScriptScan *scan, ScriptSqlPiece *piece);
extern bool ScriptScanWord(ScriptScan *scan, int *start, int *end);
extern int	ScriptScanLineEnd(ScriptScan *scan);
extern int	ScriptSqlOrigin(const ScriptSqlPiece *piece, int out);
extern bool ScriptCheckSql(const ScriptSqlPiece *piece, ScriptSql *sql,
						   ScriptProblemData *problem);

#endif							/* PGBL_SCRIPT_PARSE_H */
