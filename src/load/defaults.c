/*-------------------------------------------------------------------------
 * defaults.c
 *		Filling a leaf's other columns (shape.c's extra columns: neither
 *		ycsb_key nor a field) as INSERT would: each column's DEFAULT, an
 *		identity column's next value, a stored generated column's
 *		expression over the row; a column without any of them is NULL.
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
 * The caller forms the heap tuple from values[] and nulls[] and then
 * resets the per-tuple memory.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_attribute.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "rewrite/rewriteHandler.h"
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

/* Prepare column att's default (or generation) expression; NULL if none. */
static ExprState *
defaults_prepare(Relation rel, int att, EState *estate)
{
	Expr	   *expr = (Expr *) build_column_default(rel, att + 1);

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
