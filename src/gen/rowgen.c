/*-------------------------------------------------------------------------
 * rowgen.c
 *		Field values as a pure function of (seed, key number, column), and
 *		building whole rows for a YCSB-shaped row type.  The column is the
 *		number in the field's name: field1 of BenchBase's table (field1 ..
 *		fieldN) is field1 of YCSB's (field0 .. fieldN-1).
 *
 * A field is seeded with xxHash's XXH3 over the key number and column
 * (sixteen little-endian bytes) with the job's seed, then expanded with a
 * splitmix64 stream.  Each 64-bit word gives eight characters: the low six
 * bits of each byte plus '0', i.e. the 64 printable characters '0' .. 'o'.
 * Nothing depends on the machine's byte order, the worker count or on
 * which rows were generated before, so any chunking yields the same rows.
 *
 * A field's length (fieldlengthdistribution uniform or zipfian) is drawn
 * the same way, from XXH3 over the key number, column and a third word,
 * so it is independent of the field's characters: a field of length n is
 * the first n characters of the field fieldlength long.  Zipfian lengths
 * are YCSB's ZipfianGenerator(minfieldlength, fieldlength) at that draw.
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
/* The third word of the hash input of a field's length. */
#define LENGTH_TAG		UINT64CONST(0x4C454E475448) /* "LENGTH" */

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
	Size		keysize = INTALIGN(KEYS_DATUM_BUFSIZE);
	Size		fieldsize = INTALIGN(VARHDRSZ + spec->fieldlength);

	Assert(spec->keys.kind == shape->key_kind);
	rg->shape = shape;
	rg->spec = *spec;
	if (spec->fielddist == FIELDLEN_ZIPFIAN)
		dist_zipf_range_init(&rg->lengths,
							 spec->fieldlength - spec->minfieldlength + 1);
	rg->values = palloc0(sizeof(Datum) * Max(shape->natts, 1));
	rg->nulls = palloc(sizeof(bool) * Max(shape->natts, 1));
	memset(rg->nulls, true, sizeof(bool) * shape->natts);
	rg->buf = palloc(keysize + fieldsize * shape->nfields);
	rg->keybuf = rg->buf;
	rg->key = (Datum) 0;
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
	rg->key = keys_datum(&rg->spec.keys, seq, rg->keybuf);
	rg->values[rg->shape->key_att] = rg->key;
}

/* Set the ycsb_key of the row to a key (keys_datum()) built elsewhere. */
void
rowgen_set_key(RowGen *rg, Datum key)
{
	rg->key = key;
	rg->values[rg->shape->key_att] = key;
}

/* The length of field `column` of row seq, per the spec's distribution. */
int
rowgen_field_length(const RowGen *rg, int64 seq, int column)
{
	const GenSpec *spec = &rg->spec;
	uint64		input[3];
	uint64		h;
	int64		range = spec->fieldlength - spec->minfieldlength + 1;

	if (spec->fielddist == FIELDLEN_CONSTANT)
		return spec->fieldlength;
	input[0] = rowgen_le64((uint64) seq);
	input[1] = rowgen_le64((uint64) column);
	input[2] = rowgen_le64(LENGTH_TAG);
	h = XXH3_64bits_withSeed(input, sizeof(input), spec->seed);
	if (spec->fielddist == FIELDLEN_UNIFORM)
		return spec->minfieldlength + (int) (h % (uint64) range);
	/* 53 random bits: a double in [0, 1) as YCSB's nextDouble() */
	return spec->minfieldlength +
		(int) dist_zipf_range_at(&rg->lengths,
								 (double) (h >> 11) * (1.0 / (UINT64CONST(1) << 53)));
}

/*
 * Build the fields of row seq: the values a load writes, rows() returns
 * and a read of the row should find.
 */
void
rowgen_build_fields(RowGen *rg, int64 seq)
{
	for (int f = 0; f < rg->shape->nfields; f++)
	{
		char	   *field = DatumGetPointer(rg->values[rg->shape->field_att[f]]);
		int			column = rg->shape->field_base + f;
		int			len = rowgen_field_length(rg, seq, column);

		SET_VARSIZE(field, VARHDRSZ + len);
		rowgen_fill_field(rg->spec.seed, seq, column, VARDATA(field), len);
	}
}
