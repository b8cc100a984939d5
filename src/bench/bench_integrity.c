/*-------------------------------------------------------------------------
 * bench_integrity.c
 *		YCSB's dataintegrity for petagen.bench(): a worker compares the
 *		fields of each row it reads with what the generator gives for the
 *		row's key number, and its updates write the generator's value, so
 *		that a row stays checkable after it was updated.
 *
 * YCSB does the same (CoreWorkload's buildDeterministicValue: with
 * dataintegrity, inserts and updates write a function of key and field,
 * and reads compare with it).  petagen's function is the load's own
 * (rowgen.c, with the run's generation spec), so a freshly loaded table
 * reads with no mismatch, and one changed by anyone but petagen counts.
 * A read checks the row of its key; a scan checks its first row, when
 * that is the row of the key the scan starts at: the generator's values
 * are a function of the key number, which the other rows' keys do not
 * reveal (ycsb and go-ycsb keys are hashes).  A row counts once, however
 * many of its fields differ; a missing row is not_found, not a mismatch.
 * Workers call this only with dataintegrity on: off costs nothing.  A
 * scan whose first row is not its start key's did not find that key
 * (not_found), with or without dataintegrity.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"

#include "bench/bench_integrity.h"

/* Longest name of a field column, "field" and a number. */
#define BENCH_FIELD_NAME_LEN	32

/* Column name of a row read into *value; false if it is missing or NULL. */
static bool
bench_column(HeapTuple tuple, TupleDesc desc, const char *name, Datum *value)
{
	int			fnum = SPI_fnumber(desc, name);
	bool		isnull = true;

	*value = fnum > 0 ? SPI_getbinval(tuple, desc, fnum, &isnull) : (Datum) 0;
	return !isnull;
}

/* Does text column name of a row read hold the bytes of value (not null)? */
static bool
bench_column_is(HeapTuple tuple, TupleDesc desc, const char *name, Datum value)
{
	Datum		got;

	return bench_column(tuple, desc, name, &got) &&
		keys_equal(KEYKIND_TEXT, got, value);
}

/* Does a row read hold the generator's fields of row seq? */
static bool
bench_row_matches(RowGen *rg, int64 seq, HeapTuple tuple, TupleDesc desc)
{
	char		name[BENCH_FIELD_NAME_LEN];

	rowgen_build_fields(rg, seq);
	for (int f = 0; f < rg->shape->nfields; f++)
	{
		snprintf(name, sizeof(name), "field%d", rg->shape->field_base + f);
		if (!bench_column_is(tuple, desc, name,
							 rg->values[rg->shape->field_att[f]]))
			return false;
	}
	return true;
}

/*
 * Is the first of the nrows rows just read the row of the key in rg->key?
 * A scan that does not start at its key did not find it.
 */
bool
bench_first_row_is_key(RowGen *rg, SPITupleTable *tuptable, uint64 nrows)
{
	Datum		got;

	if (nrows == 0 ||
		!bench_column(tuptable->vals[0], tuptable->tupdesc, "ycsb_key", &got))
		return false;
	return keys_equal(rg->spec.keys.kind, got, rg->key);
}

/*
 * 1 if the first of the nrows rows just read is row seq (its key is in
 * rg->key) and its fields differ from the generator's, else 0.
 */
int
bench_integrity_check(RowGen *rg, int64 seq, SPITupleTable *tuptable,
					  uint64 nrows)
{
	if (!bench_first_row_is_key(rg, tuptable, nrows))
		return 0;
	return bench_row_matches(rg, seq, tuptable->vals[0], tuptable->tupdesc) ? 0 : 1;
}

/* The generator's value of one field of row seq, what an update writes. */
Datum
bench_integrity_value(RowGen *rg, int64 seq, int field)
{
	rowgen_build_fields(rg, seq);
	return rg->values[rg->shape->field_att[field]];
}
