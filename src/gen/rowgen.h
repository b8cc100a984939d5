/*-------------------------------------------------------------------------
 * rowgen.h
 *		Building YCSB rows: field lengths and bytes from (seed, key
 *		number, column).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_ROWGEN_H
#define PETAGEN_ROWGEN_H

#include "gen/dist.h"
#include "gen/shape.h"
#include "gen/spec.h"

/*
 * A reusable row: values[]/nulls[] in the row type's attribute order, the
 * text values pointing into one buffer that every row overwrites.
 */
typedef struct RowGen
{
	const RowShape *shape;
	GenSpec		spec;
	Datum	   *values;
	bool	   *nulls;
	Datum		key;			/* the ycsb_key (keys_datum()) */
	char	   *keybuf;			/* a text key's varlena */
	char	   *buf;			/* key and field varlenas */
	DistZipf	lengths;		/* fieldlengthdistribution zipfian's generator */
} RowGen;

extern void rowgen_init(RowGen *rg, const RowShape *shape, const GenSpec *spec);
extern void rowgen_build_key(RowGen *rg, int64 seq);
extern void rowgen_set_key(RowGen *rg, Datum key);
extern void rowgen_build_fields(RowGen *rg, int64 seq);
extern int	rowgen_field_length(const RowGen *rg, int64 seq, int column);
extern void rowgen_fill_field(uint64 seed, int64 seq, int column, char *dst,
							  int len);

#endif							/* PETAGEN_ROWGEN_H */
