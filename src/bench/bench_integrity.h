/*-------------------------------------------------------------------------
 * bench_integrity.h
 *		YCSB's dataintegrity in a benchmark worker: the fields of a row read
 *		checked against the generator, and the generator's value for an
 *		update.  See bench_integrity.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_INTEGRITY_H
#define PETAGEN_BENCH_INTEGRITY_H

#include "executor/spi.h"

#include "gen/rowgen.h"

extern bool bench_first_row_is_key(RowGen *rg, SPITupleTable *tuptable,
								   uint64 nrows);
extern int	bench_integrity_check(RowGen *rg, int64 seq, SPITupleTable *tuptable,
								  uint64 nrows);
extern Datum bench_integrity_value(RowGen *rg, int64 seq, int field);

#endif							/* PETAGEN_BENCH_INTEGRITY_H */
