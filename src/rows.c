/*-------------------------------------------------------------------------
 * rows.c
 *		petagen.rows(NULL::table, first, count, ...): the generator as a
 *		set-returning function, for INSERT ... SELECT and COPY (SELECT ...).
 *
 * Materialize mode: the rows of first .. first+count-1 go into the
 * executor's tuplestore in one call.  Nothing is allocated per row.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "rowgen.h"

/* The row type petagen.rows() was called with, or an error. */
static Oid
rows_table_type(FunctionCallInfo fcinfo)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, RANGE_ARG_TABLE);

	if (!OidIsValid(typid) || !type_is_rowtype(typid) ||
		!OidIsValid(get_typ_typrelid(typid)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("petagen.rows() needs the row type of a table, not %s",
						OidIsValid(typid) ? format_type_be(typid) : "an unknown type"),
				 errhint("Pass NULL::tablename as the first argument.")));
	return typid;
}

PG_FUNCTION_INFO_V1(petagen_rows);
/* petagen.rows(table, first, count, keys, seed, fieldlength, prefix, zeropadding) */
Datum
petagen_rows(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *name;
	int64		first;
	int64		count;
	GenSpec		spec;
	RowShape	shape;
	RowGen		rg;

	name = format_type_be(rows_table_type(fcinfo));
	spec_range_args(fcinfo, "petagen.rows()", true, &first, &count, &spec);

	InitMaterializedSRF(fcinfo, 0);
	shape_from_tupdesc(rsinfo->setDesc, name, &shape);
	spec_check_shape(&spec, &shape, count > 0 ? first + (count - 1) : first,
					 name);
	rowgen_init(&rg, &shape, &spec);

	for (int64 i = 0; i < count; i++)
	{
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		rowgen_build_key(&rg, first + i);
		rowgen_build_fields(&rg, first + i);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
							 rg.values, rg.nulls);
	}
	return (Datum) 0;
}
