/*-------------------------------------------------------------------------
 *
 * capture_parse.c
 *		What each parameter of a normalized statement meets: the server's
 *		own parser and parse analysis, for capture().
 *
 * pg_stat_statements keeps a statement's text with its constants replaced
 * by $1, $2 ...; their values are gone.  To replay the statement with
 * values that meet the application's data, capture() must know what each
 * $n is compared with or stored into.  Regular expressions over the text
 * cannot tell `a.id = $1` in a join from a string that looks like it;
 * parse analysis can: the text is parsed and analyzed as the server would
 * (parse_analyze_varparams() infers each parameter's type), and the
 * analyzed tree is walked for the places a parameter stands:
 *
 *	- beside a column in a comparison (`col = $1`, `col < $2`, BETWEEN,
 *	  which analysis turns into two comparisons, `col LIKE $3`), or in
 *	  `col IN ($1, $2)` / `col = ANY ($1)`;
 *	- as LIMIT or OFFSET;
 *	- as a value an INSERT stores or an UPDATE sets in a column.
 *
 * A column is followed through joins and one level of subquery to the
 * table and attribute it reads.  A parameter found in none of these places
 * is returned with its type only: capture() draws it by type and names it
 * as a guess.  Nothing is planned or executed; the analysis resolves names
 * through the caller's search_path, as the application's session did when
 * it ran the statement.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "capture.h"

PG_FUNCTION_INFO_V1(pgbench_lab_capture_params);

/* One parameter's place, as found. */
typedef struct ParamPlace
{
	Oid			relid;			/* InvalidOid: no column found */
	AttrNumber	attnum;
	const char *kind;			/* "eq", "in", "range", "like", ... */
	const char *op;				/* the operator's name, for comparisons */
} ParamPlace;

typedef struct PlaceWalk
{
	List	   *queries;		/* the enclosing Query nodes, innermost first */
	ParamPlace *places;			/* per parameter, 1-based */
	int			nparams;
} PlaceWalk;

static bool place_walker(Node *node, PlaceWalk *w);

/* The parameter number of an external Param under implicit casts, or 0. */
static int
param_number(Node *node)
{
	node = strip_implicit_coercions(node);
	/* an explicit cast the text wrote ($1::int4) is still the parameter */
	while (node != NULL)
	{
		if (IsA(node, RelabelType))
			node = (Node *) ((RelabelType *) node)->arg;
		else if (IsA(node, CoerceViaIO))
			node = (Node *) ((CoerceViaIO *) node)->arg;
		else if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcformat != COERCE_EXPLICIT_CALL &&
				 list_length(((FuncExpr *) node)->args) >= 1)
			node = linitial(((FuncExpr *) node)->args);
		else
			break;
	}
	if (node != NULL && IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)
		return ((Param *) node)->paramid;
	return 0;
}

/*
 * The table and attribute a Var reads, following join aliases and one
 * level of subquery; false when it reads something else (a function's
 * result, VALUES, a CTE).
 */
static bool
var_column(Var *var, List *queries, Oid *relid, AttrNumber *attnum)
{
	Query	   *q;
	RangeTblEntry *rte;

	if (var->varlevelsup >= list_length(queries) || var->varattno <= 0)
		return false;
	q = (Query *) list_nth(queries, var->varlevelsup);
	if (var->varno < 1 || var->varno > list_length(q->rtable))
		return false;
	rte = rt_fetch(var->varno, q->rtable);
	if (rte->rtekind == RTE_RELATION)
	{
		*relid = rte->relid;
		*attnum = var->varattno;
		return true;
	}
	if (rte->rtekind == RTE_JOIN && var->varattno <= list_length(rte->joinaliasvars))
	{
		Node	   *alias = strip_implicit_coercions(list_nth(rte->joinaliasvars, var->varattno - 1));

		if (alias != NULL && IsA(alias, Var))
		{
			Var			copy = *(Var *) alias;

			copy.varlevelsup += var->varlevelsup;
			return var_column(&copy, queries, relid, attnum);
		}
	}
	if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
	{
		TargetEntry *te = get_tle_by_resno(rte->subquery->targetList, var->varattno);
		Node	   *expr = te != NULL ? strip_implicit_coercions((Node *) te->expr) : NULL;

		if (expr != NULL && IsA(expr, Var) && ((Var *) expr)->varlevelsup == 0)
		{
			List	   *inner = lcons(rte->subquery, list_copy_tail(queries, var->varlevelsup));

			return var_column((Var *) expr, inner, relid, attnum);
		}
	}
	return false;
}

/* Records parameter n's place unless an earlier one was found. */
static void
note(PlaceWalk *w, int n, Oid relid, AttrNumber attnum, const char *kind, const char *op)
{
	if (n < 1 || n > w->nparams || w->places[n].kind != NULL)
		return;
	w->places[n].relid = relid;
	w->places[n].attnum = attnum;
	w->places[n].kind = kind;
	w->places[n].op = op;
}

/* The kind of a comparison by its operator's name. */
static const char *
comparison_kind(const char *op)
{
	if (strcmp(op, "=") == 0)
		return "eq";
	if (strcmp(op, "<") == 0 || strcmp(op, "<=") == 0 || strcmp(op, ">") == 0 || strcmp(op, ">=") == 0)
		return "range";
	if (strcmp(op, "~~") == 0 || strcmp(op, "~~*") == 0)
		return "like";
	if (strcmp(op, "<>") == 0)
		return "ne";
	return "other";
}

/* A column beside a parameter in a binary operator, either way round. */
static void
note_opexpr(PlaceWalk *w, Oid opno, List *args)
{
	Node	   *l,
			   *r;
	Oid			relid;
	AttrNumber	attnum;
	char	   *op;
	int			n;

	if (list_length(args) != 2)
		return;
	l = strip_implicit_coercions(linitial(args));
	r = strip_implicit_coercions(lsecond(args));
	op = get_opname(opno);
	if (op == NULL)
		return;
	if (IsA(l, Var) && (n = param_number(r)) > 0 && var_column((Var *) l, w->queries, &relid, &attnum))
		note(w, n, relid, attnum, comparison_kind(op), op);
	else if (IsA(r, Var) && (n = param_number(l)) > 0 && var_column((Var *) r, w->queries, &relid, &attnum))
		note(w, n, relid, attnum, comparison_kind(op), op);
}

/* col = ANY ($1) and col IN ($1, $2, ...). */
static void
note_scalararray(PlaceWalk *w, ScalarArrayOpExpr *s)
{
	Node	   *l = strip_implicit_coercions(linitial(s->args));
	Node	   *r = strip_implicit_coercions(lsecond(s->args));
	Oid			relid;
	AttrNumber	attnum;
	int			n;
	ListCell   *lc;

	if (!IsA(l, Var) || !var_column((Var *) l, w->queries, &relid, &attnum))
		return;
	if ((n = param_number(r)) > 0)
		note(w, n, relid, attnum, "in", get_opname(s->opno));
	else if (IsA(r, ArrayExpr))
		foreach(lc, ((ArrayExpr *) r)->elements)
			if ((n = param_number(lfirst(lc))) > 0)
				note(w, n, relid, attnum, "in", get_opname(s->opno));
}

/*
 * The values an INSERT stores or an UPDATE sets: each target entry that
 * is a parameter (or, for a multi-row INSERT, each VALUES row's item) is
 * the result relation's column of the entry's number.
 */
static void
note_targets(PlaceWalk *w, Query *q)
{
	RangeTblEntry *result;
	ListCell   *lc;

	if ((q->commandType != CMD_INSERT && q->commandType != CMD_UPDATE) || q->resultRelation <= 0)
		return;
	result = rt_fetch(q->resultRelation, q->rtable);
	foreach(lc, q->targetList)
	{
		TargetEntry *te = (TargetEntry *) lfirst(lc);
		Node	   *expr = strip_implicit_coercions((Node *) te->expr);
		int			n;

		if (te->resjunk)
			continue;
		if ((n = param_number(expr)) > 0)
			note(w, n, result->relid, te->resno, q->commandType == CMD_INSERT ? "insert" : "update", NULL);
		else if (IsA(expr, Var) && ((Var *) expr)->varlevelsup == 0 &&
				 rt_fetch(((Var *) expr)->varno, q->rtable)->rtekind == RTE_VALUES)
		{
			RangeTblEntry *values = rt_fetch(((Var *) expr)->varno, q->rtable);
			ListCell   *row;

			foreach(row, values->values_lists)
				if ((n = param_number(list_nth((List *) lfirst(row), ((Var *) expr)->varattno - 1))) > 0)
					note(w, n, result->relid, te->resno, "insert", NULL);
		}
	}
}

static bool
place_walker(Node *node, PlaceWalk *w)
{
	if (node == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;
		bool		r;
		int			n;

		w->queries = lcons(q, w->queries);
		note_targets(w, q);
		if ((n = param_number(q->limitCount)) > 0)
			note(w, n, InvalidOid, 0, "limit", NULL);
		if ((n = param_number(q->limitOffset)) > 0)
			note(w, n, InvalidOid, 0, "offset", NULL);
		r = query_tree_walker(q, place_walker, w, 0);
		w->queries = list_delete_first(w->queries);
		return r;
	}
	if (IsA(node, OpExpr))
		note_opexpr(w, ((OpExpr *) node)->opno, ((OpExpr *) node)->args);
	else if (IsA(node, ScalarArrayOpExpr))
		note_scalararray(w, (ScalarArrayOpExpr *) node);
	return expression_tree_walker(node, place_walker, w);
}

/*
 * Two parameters on either side of an arithmetic operator ($1 / $2) were
 * two constants of the application's text, most likely numbers
 * (`:cents / 100.0`): left unknown, analysis finds the operator ambiguous
 * (42725) and the statement would be skipped.  They are typed numeric
 * before analysis; every other parameter's type analysis infers.
 */
typedef struct ArithTypes
{
	Oid		   *types;
	int			n;				/* entries of types */
} ArithTypes;

static int
raw_param_number(Node *node)
{
	return node != NULL && IsA(node, ParamRef) ? ((ParamRef *) node)->number : 0;
}

static bool
arith_walker(Node *node, ArithTypes *a)
{
	if (node == NULL)
		return false;
	CHECK_FOR_INTERRUPTS();
	if (IsA(node, A_Expr) && ((A_Expr *) node)->kind == AEXPR_OP)
	{
		A_Expr	   *e = (A_Expr *) node;
		const char *op = strVal(llast(e->name));
		int			l = raw_param_number(e->lexpr);
		int			r = raw_param_number(e->rexpr);

		if (l > 0 && r > 0 && l <= a->n && r <= a->n && strlen(op) == 1 && strchr("+-*/%^", op[0]) != NULL)
			a->types[l - 1] = a->types[r - 1] = NUMERICOID;
	}
	return raw_expression_tree_walker(node, arith_walker, a);
}

/* The highest $n of a raw tree. */
static bool
max_param_walker(Node *node, int *max)
{
	if (node == NULL)
		return false;
	if (IsA(node, ParamRef))
		*max = Max(*max, ((ParamRef *) node)->number);
	return raw_expression_tree_walker(node, max_param_walker, max);
}

/*
 * The text of argument 0 as one raw statement: NULL, or a text of more
 * or fewer statements, refused.
 */
static RawStmt *
one_statement(FunctionCallInfo fcinfo, char **sql)
{
	List	   *raw;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("query must not be null"),
				 errhint("Pass a statement's text as pg_stat_statements keeps it.")));
	*sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	raw = raw_parser(*sql, RAW_PARSE_DEFAULT);
	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query must be one statement, not %d", list_length(raw)),
				 errhint("pg_stat_statements keeps each statement of a multi-statement string apart.")));
	return linitial_node(RawStmt, raw);
}

/* Parse analysis of one statement, its parameters' types inferred. */
static Query *
analyze(RawStmt *stmt, const char *sql, Oid **types, int *ntypes)
{
	ArithTypes	a = {NULL, 0};

	(void) max_param_walker(stmt->stmt, &a.n);
	a.types = palloc0(sizeof(Oid) * Max(a.n, 1));
	(void) arith_walker(stmt->stmt, &a);
	*types = a.types;
	*ntypes = a.n;
	return parse_analyze_varparams(stmt, sql, types, ntypes, NULL);
}

/*
 * pgbench_lab_internal.capture_params(query text)
 *	RETURNS TABLE (param integer, type regtype, relation regclass,
 *				   attnum smallint, kind text, operator text)
 *
 * Every parameter $1 .. $n of one statement, with the type analysis gave
 * it and, where found, the column it meets and how (kind: eq, in, range,
 * like, ne, other, limit, offset, insert, update; NULL where it was found
 * nowhere).  A text that is not exactly one statement, or does not parse
 * or analyze here (a table dropped since), raises the server's error.
 */
Datum
pgbench_lab_capture_params(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *sql;
	RawStmt    *stmt = one_statement(fcinfo, &sql);
	Oid		   *types = NULL;
	int			ntypes = 0;
	Query	   *q;
	PlaceWalk	w = {NIL, NULL, 0};

	q = analyze(stmt, sql, &types, &ntypes);
	w.nparams = ntypes;
	w.places = palloc0(sizeof(ParamPlace) * (ntypes + 1));
	(void) place_walker((Node *) q, &w);

	InitMaterializedSRF(fcinfo, 0);
	for (int n = 1; n <= ntypes; n++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};
		ParamPlace *p = &w.places[n];

		values[0] = Int32GetDatum(n);
		values[1] = ObjectIdGetDatum(types[n - 1]);
		nulls[1] = !OidIsValid(types[n - 1]);
		values[2] = ObjectIdGetDatum(p->relid);
		nulls[2] = !OidIsValid(p->relid);
		values[3] = Int16GetDatum(p->attnum);
		nulls[3] = !OidIsValid(p->relid);
		values[4] = p->kind != NULL ? CStringGetTextDatum(p->kind) : (Datum) 0;
		nulls[4] = p->kind == NULL;
		values[5] = p->op != NULL ? CStringGetTextDatum(p->op) : (Datum) 0;
		nulls[5] = p->op == NULL;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * pgbench_lab_internal.capture_command(query text) RETURNS text
 *
 * What one statement does, for capture() to choose what it may replay:
 * 'select' (reads only), 'select for update' (a locking clause),
 * 'select with writes' (a data-modifying WITH), 'insert', 'update',
 * 'delete', 'merge', or 'utility' (BEGIN, COMMIT, SET, VACUUM ...: never
 * analyzed, so a utility text needs no tables).  A text that no longer
 * analyzes raises the server's error, as capture_params() does.  A
 * function the statement calls is not looked into: a SELECT of a
 * function declared STABLE or IMMUTABLE that writes reads as 'select'.
 */
PG_FUNCTION_INFO_V1(pgbench_lab_capture_command);

Datum
pgbench_lab_capture_command(PG_FUNCTION_ARGS)
{
	char	   *sql;
	RawStmt    *stmt = one_statement(fcinfo, &sql);
	Oid		   *types = NULL;
	int			ntypes = 0;
	Query	   *q;
	const char *what;

	switch (nodeTag(stmt->stmt))
	{
		case T_SelectStmt:
		case T_InsertStmt:
		case T_UpdateStmt:
		case T_DeleteStmt:
		case T_MergeStmt:
			break;
		default:
			PG_RETURN_TEXT_P(cstring_to_text("utility"));
	}
	q = analyze(stmt, sql, &types, &ntypes);
	switch (q->commandType)
	{
		case CMD_SELECT:
			if (q->hasModifyingCTE)
				what = "select with writes";
			else if (q->rowMarks != NIL || q->hasForUpdate)
				what = "select for update";
			else if (contain_volatile_functions((Node *) q))
				what = "select calling volatile functions";
			else
				what = "select";
			break;
		case CMD_INSERT:
			what = "insert";
			break;
		case CMD_UPDATE:
			what = "update";
			break;
		case CMD_DELETE:
			what = "delete";
			break;
		case CMD_MERGE:
			what = "merge";
			break;
		default:
			what = "utility";
			break;
	}
	PG_RETURN_TEXT_P(cstring_to_text(what));
}
