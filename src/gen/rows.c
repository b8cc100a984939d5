/*-------------------------------------------------------------------------
 * rows.c
 *		petagen.rows(NULL::table, first, count, ...): the generator as a
 *		set-returning function, for INSERT ... SELECT and COPY (SELECT ...).
 *
 * The function serves both places PostgreSQL calls a set-returning
 * function from, in the mode that place does best:
 *
 * - In FROM (a FunctionScan, which asks for SFRM_Materialize_Preferred)
 *   the executor collects every row into a tuplestore whatever the mode,
 *   so rows() fills that tuplestore itself in one call (materialize mode):
 *   no per-row call, no composite Datum.  Beyond work_mem the tuplestore
 *   spills to a temporary file of the whole result.
 * - In the select list (a ProjectSet) rows() returns one row per call
 *   (value-per-call mode), so rows stream to COPY or INSERT with nothing
 *   kept: `SELECT (r).* FROM (SELECT petagen.rows(...) AS r) s`.
 *
 * Nothing is allocated per row in a long-lived context: the RowGen lives
 * in the multi-call context, and each streamed row is formed in the
 * caller's per-tuple context, which the executor resets for every row.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "gen/rowgen.h"

/* Check for interrupts once per this many rows. */
#define ROWS_INTERRUPT_MASK 1023

/* What a streaming rows() keeps between calls. */
typedef struct RowsStream
{
	RowShape	shape;
	RowGen		rg;
	int64		first;
} RowsStream;

/* The name of the row type petagen.rows() was called with, or an error. */
static const char *
rows_table_name(FunctionCallInfo fcinfo)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, RANGE_ARG_TABLE);

	if (!OidIsValid(typid) || !type_is_rowtype(typid) ||
		!OidIsValid(get_typ_typrelid(typid)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("petagen.rows() needs the row type of a table, not %s",
						OidIsValid(typid) ? format_type_be(typid) : "an unknown type"),
				 errhint("Pass NULL::tablename as the first argument.")));
	return format_type_be(typid);
}

/* Validate the arguments against row type name's tupdesc, set up rg; returns the row count. */
static int64
rows_setup(FunctionCallInfo fcinfo, const char *name, TupleDesc tupdesc,
		   RowShape *shape, RowGen *rg, int64 *first)
{
	int64		count;
	GenSpec		spec;

	spec_range_args(fcinfo, "petagen.rows()", true, first, &count, &spec);
	shape_from_tupdesc(tupdesc, name, shape);
	keys_set_kind(&spec.keys, shape->key_kind, name);
	spec_check_shape(&spec, shape, count > 0 ? *first + (count - 1) : *first,
					 name);
	rowgen_init(rg, shape, &spec);
	return count;
}

/* Build row seq into rg, checking for interrupts now and then. */
static inline void
rows_build(RowGen *rg, int64 i, int64 seq)
{
	if ((i & ROWS_INTERRUPT_MASK) == 0)
		CHECK_FOR_INTERRUPTS();
	rowgen_build_key(rg, seq);
	rowgen_build_fields(rg, seq);
}

/* Materialize mode: every row into the executor's tuplestore, in one call. */
static void
rows_materialize(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *name = rows_table_name(fcinfo);
	int64		first;
	int64		count;
	RowShape	shape;
	RowGen		rg;

	InitMaterializedSRF(fcinfo, 0);
	count = rows_setup(fcinfo, name, rsinfo->setDesc, &shape, &rg, &first);
	for (int64 i = 0; i < count; i++)
	{
		rows_build(&rg, i, first + i);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
							 rg.values, rg.nulls);
	}
}

/* Value-per-call mode: the next row as a composite Datum, or the end. */
static Datum
rows_stream(FunctionCallInfo fcinfo)
{
	FuncCallContext *funcctx;
	RowsStream *st;
	HeapTuple	tuple;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcxt;
		const char *name;
		TupleDesc	tupdesc;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcxt = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		name = rows_table_name(fcinfo);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "petagen.rows() must return a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		st = palloc(sizeof(RowsStream));
		funcctx->max_calls = rows_setup(fcinfo, name, tupdesc, &st->shape,
										&st->rg, &st->first);
		funcctx->user_fctx = st;
		MemoryContextSwitchTo(oldcxt);
	}
	funcctx = SRF_PERCALL_SETUP();
	st = (RowsStream *) funcctx->user_fctx;
	if (funcctx->call_cntr >= funcctx->max_calls)
		SRF_RETURN_DONE(funcctx);
	rows_build(&st->rg, funcctx->call_cntr, st->first + funcctx->call_cntr);
	tuple = heap_form_tuple(funcctx->tuple_desc, st->rg.values, st->rg.nulls);
	SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(tuple));
}

PG_FUNCTION_INFO_V1(petagen_rows);
/* petagen.rows(table, first, count, keys, seed, fieldlength, prefix, zeropadding) */
Datum
petagen_rows(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	if (rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) &&
		(rsinfo->allowedModes & SFRM_ValuePerCall) &&
		!(rsinfo->allowedModes & SFRM_Materialize_Preferred))
		return rows_stream(fcinfo);
	rows_materialize(fcinfo);
	return (Datum) 0;
}
