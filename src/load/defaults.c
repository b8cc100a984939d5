/*-------------------------------------------------------------------------
 * defaults.c
 *		Filling a leaf's other columns (shape.c's extra columns: neither
 *		ycsb_key nor a field) as INSERT would: each column's DEFAULT, an
 *		identity column's next value, a stored generated column's
 *		expression over the row; a column without any of them is NULL,
 *		coerced to the column's domain if it has one (which may refuse it).
 *
 * The expressions are build_column_default()'s, the ones the rewriter
 * puts into an INSERT's target list for a column it does not name (and
 * ExecInitStoredGenerated() computes generated columns from), prepared
 * once per leaf in the writer's EState and evaluated for every row in its
 * per-tuple memory: a volatile default such as now() or nextval() is
 * evaluated per row as INSERT does.  Defaults are computed first, then
 * the generated columns over the row so far (a generated column may refer
 * to the other columns, never to another generated one).  A virtual
 * generated column (PostgreSQL 18) is not stored and stays NULL.
 *
 * The caller forms the heap tuple from values[] and nulls[], checks it
 * against the leaf's NOT NULL and CHECK constraints (writer.c) and then
 * resets the per-tuple memory.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_attribute.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "rewrite/rewriteHandler.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "load/defaults.h"

/* One extra column INSERT fills. */
typedef struct DefaultColumn
{
	int			att;			/* 0-based attribute index */
	ExprState  *expr;
} DefaultColumn;

struct RowDefaults
{
	EState	   *estate;
	int			ndefaults;		/* columns[0 .. ndefaults-1]: defaults */
	int			ncolumns;		/* then the stored generated columns */
	DefaultColumn *columns;
	TupleTableSlot *row;		/* the row so far, for generated columns */
};

/*
 * A NULL of column att's domain type, coerced to the domain, or NULL when
 * the column's type is no domain: what the planner puts into an INSERT for
 * a column without a default (expand_insert_targetlist()), so that the
 * domain's NOT NULL and CHECK constraints judge the NULL.
 */
static Expr *
defaults_domain_null(Form_pg_attribute attr)
{
	Oid			base_type;
	int32		base_typmod = attr->atttypmod;
	Node	   *null_const;

	base_type = getBaseTypeAndTypmod(attr->atttypid, &base_typmod);
	if (base_type == attr->atttypid)
		return NULL;
	null_const = (Node *) makeConst(base_type, base_typmod, attr->attcollation,
									attr->attlen, (Datum) 0, true,
									attr->attbyval);
	return (Expr *) coerce_to_domain(null_const, base_type, base_typmod,
									 attr->atttypid, COERCION_IMPLICIT,
									 COERCE_IMPLICIT_CAST, -1, false);
}

/*
 * Prepare column att's default (or generation) expression, or for a domain
 * column without one a NULL coerced to the domain; NULL if none of these.
 */
static ExprState *
defaults_prepare(Relation rel, int att, EState *estate)
{
	Expr	   *expr = (Expr *) build_column_default(rel, att + 1);

	if (expr == NULL)
		expr = defaults_domain_null(TupleDescAttr(RelationGetDescr(rel), att));
	return expr == NULL ? NULL : ExecPrepareExpr(expr, estate);
}

/* Add column att with expression expr to d, unless it has none. */
static void
defaults_add(RowDefaults *d, int att, ExprState *expr)
{
	if (expr == NULL)
		return;					/* no default: NULL, as INSERT leaves it */
	d->columns[d->ncolumns].att = att;
	d->columns[d->ncolumns].expr = expr;
	d->ncolumns++;
}

/*
 * Prepare the extra columns of leaf rel (shape is its own) in estate, in
 * the current memory context; NULL if it has none to fill.
 */
RowDefaults *
defaults_init(Relation rel, const RowShape *shape, EState *estate)
{
	TupleDesc	desc = RelationGetDescr(rel);
	RowDefaults *d;
	bool		generated = false;

	if (shape->nextra == 0)
		return NULL;
	d = palloc0(sizeof(RowDefaults));
	d->estate = estate;
	d->columns = palloc(sizeof(DefaultColumn) * shape->nextra);
	for (int i = 0; i < shape->nextra; i++)
	{
		int			att = shape->extra_att[i];

		if (TupleDescAttr(desc, att)->attgenerated == '\0')
			defaults_add(d, att, defaults_prepare(rel, att, estate));
	}
	d->ndefaults = d->ncolumns;
	for (int i = 0; i < shape->nextra; i++)
	{
		int			att = shape->extra_att[i];

		if (TupleDescAttr(desc, att)->attgenerated == ATTRIBUTE_GENERATED_STORED)
		{
			defaults_add(d, att, defaults_prepare(rel, att, estate));
			generated = true;
		}
	}
	if (generated)
		/* a copy: a slot pins a refcounted descriptor until it is dropped */
		d->row = ExecInitExtraTupleSlot(estate, CreateTupleDescCopy(desc),
										&TTSOpsVirtual);
	return d;
}

/* Evaluate columns from .. to-1 of d into values[] and nulls[]. */
static void
defaults_eval(RowDefaults *d, int from, int to, Datum *values, bool *nulls)
{
	ExprContext *econtext = GetPerTupleExprContext(d->estate);

	for (int i = from; i < to; i++)
	{
		DefaultColumn *col = &d->columns[i];

		values[col->att] = ExecEvalExpr(col->expr, econtext, &nulls[col->att]);
	}
}

/*
 * Fill the extra columns of a row whose key and fields values[] and
 * nulls[] hold (the others NULL), in the per-tuple memory of d's EState.
 */
void
defaults_fill(RowDefaults *d, Datum *values, bool *nulls)
{
	MemoryContext old;
	int			natts;

	if (d == NULL)
		return;
	old = MemoryContextSwitchTo(GetPerTupleMemoryContext(d->estate));
	defaults_eval(d, 0, d->ndefaults, values, nulls);
	if (d->row != NULL)
	{
		natts = d->row->tts_tupleDescriptor->natts;
		ExecClearTuple(d->row);
		memcpy(d->row->tts_values, values, sizeof(Datum) * natts);
		memcpy(d->row->tts_isnull, nulls, sizeof(bool) * natts);
		ExecStoreVirtualTuple(d->row);
		GetPerTupleExprContext(d->estate)->ecxt_scantuple = d->row;
		defaults_eval(d, d->ndefaults, d->ncolumns, values, nulls);
	}
	MemoryContextSwitchTo(old);
}
