/*-------------------------------------------------------------------------
 * rowgen.c
 *		Field values as a pure function of (seed, key number, column), and
 *		building whole rows for a YCSB-shaped row type.
 *
 * A field is seeded with xxHash's XXH3 over the key number and column
 * (sixteen little-endian bytes) with the job's seed, then expanded with a
 * splitmix64 stream.  Each 64-bit word gives eight characters: the low six
 * bits of each byte plus '0', i.e. the 64 printable characters '0' .. 'o'.
 * Nothing depends on the machine's byte order, the worker count or on
 * which rows were generated before, so any chunking yields the same rows.
 *
 * A RowGen owns one buffer with the key and every field, so building a
 * row allocates nothing; the Datums stay valid until the next row.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <xxhash.h>

#include "port/pg_bswap.h"

#include "compat.h"
#include "gen/rowgen.h"

#define SPLITMIX_GAMMA	UINT64CONST(0x9E3779B97F4A7C15)
#define SIX_BITS		UINT64CONST(0x3F3F3F3F3F3F3F3F)
#define ASCII_ZERO		UINT64CONST(0x3030303030303030)

/* Next word of a splitmix64 stream. */
static inline uint64
rowgen_splitmix64(uint64 *state)
{
	uint64		z = (*state += SPLITMIX_GAMMA);

	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* A word whose in-memory bytes are x lowest byte first, on any machine. */
static inline uint64
rowgen_le64(uint64 x)
{
#ifdef WORDS_BIGENDIAN
	return pg_bswap64(x);
#else
	return x;
#endif
}

/* Eight printable characters from a random word, first character lowest byte. */
static inline uint64
rowgen_printable(uint64 word)
{
	return rowgen_le64((word & SIX_BITS) + ASCII_ZERO);
}

/* Write the len characters of field `column` of row `seq` into dst. */
void
rowgen_fill_field(uint64 seed, int64 seq, int column, char *dst, int len)
{
	uint64		input[2];
	uint64		state;
	uint64		chars;

	input[0] = rowgen_le64((uint64) seq);
	input[1] = rowgen_le64((uint64) column);
	state = XXH3_64bits_withSeed(input, sizeof(input), seed);
	for (; len >= 8; len -= 8, dst += 8)
	{
		chars = rowgen_printable(rowgen_splitmix64(&state));
		memcpy(dst, &chars, 8);
	}
	if (len > 0)
	{
		chars = rowgen_printable(rowgen_splitmix64(&state));
		memcpy(dst, &chars, len);
	}
}

/* Set up a reusable row for shape and spec, in the current memory context. */
void
rowgen_init(RowGen *rg, const RowShape *shape, const GenSpec *spec)
{
	Size		keysize = INTALIGN(VARHDRSZ + KEYS_MAX_LEN + 1);
	Size		fieldsize = INTALIGN(VARHDRSZ + spec->fieldlength);

	rg->shape = shape;
	rg->spec = *spec;
	rg->values = palloc0(sizeof(Datum) * Max(shape->natts, 1));
	rg->nulls = palloc(sizeof(bool) * Max(shape->natts, 1));
	memset(rg->nulls, true, sizeof(bool) * shape->natts);
	rg->buf = palloc(keysize + fieldsize * shape->nfields);
	rg->key = rg->buf;
	rg->values[shape->key_att] = PointerGetDatum(rg->key);
	rg->nulls[shape->key_att] = false;
	for (int f = 0; f < shape->nfields; f++)
	{
		char	   *field = rg->buf + keysize + fieldsize * f;

		SET_VARSIZE(field, VARHDRSZ + spec->fieldlength);
		rg->values[shape->field_att[f]] = PointerGetDatum(field);
		rg->nulls[shape->field_att[f]] = false;
	}
}

/* Build the ycsb_key of row seq. */
void
rowgen_build_key(RowGen *rg, int64 seq)
{
	int			len = keys_format(&rg->spec.keys, seq, VARDATA(rg->key));

	SET_VARSIZE(rg->key, VARHDRSZ + len);
}

/* Build the fields of row seq. */
void
rowgen_build_fields(RowGen *rg, int64 seq)
{
	for (int f = 0; f < rg->shape->nfields; f++)
	{
		char	   *field = DatumGetPointer(rg->values[rg->shape->field_att[f]]);

		rowgen_fill_field(rg->spec.seed, seq, f, VARDATA(field),
						  rg->spec.fieldlength);
	}
}
