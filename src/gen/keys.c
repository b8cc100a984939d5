/*-------------------------------------------------------------------------
 * keys.c
 *		The key modes: turning a key number into a ycsb_key, and back.
 *
 * The key space is the key numbers 0 .. 2^63-1, like YCSB's record numbers.
 * A mode maps a key number to a value, which is spelled as
 * prefix + zero padding + decimal, exactly as YCSB's CoreWorkload spells it:
 *
 *	ordered		the number itself (YCSB insertorder=ordered)
 *	scrambled	a bijective permutation of the 63-bit number space, so keys
 *				look hashed but are unique by construction and invertible
 *	ycsb		the Java client's Utils.fnvhash64: FNV-1a 64 over the eight
 *				bytes of the number lowest byte first, then Math.abs()
 *	go-ycsb		go-ycsb's util.Hash64: the same over the bytes highest byte
 *				first, then the absolute value
 *
 * Both clients take the absolute value of a signed 64-bit hash, so both
 * leave -2^63 negative; the Java client zero-pads in front of the minus
 * sign and go-ycsb (fmt's %0*d) behind it.  We reproduce both.
 *
 * A ycsb_key of type int or bigint (BenchBase's YCSB table) holds the key
 * number itself, as BenchBase's loader writes 0 .. N-1: the key kind
 * (KeySpec.kind, the table's, set by keys_set_kind()) says so.  The mode,
 * prefix and zeropadding do not apply to such keys; a spec of an integer
 * kind has mode ordered, which is what the key number itself is.
 * keys_datum() is the one place a key number becomes the key's Datum, and
 * keys_format() the one place it becomes the key's text (an integer key's
 * text is its decimal number, as int8out spells it): every reader, writer
 * and prober of keys calls them.
 *
 * The SQL functions petagen.key() and petagen.seq() are in keys_sql.c.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "compat.h"
#include "gen/keys.h"

#define FNV_OFFSET_BASIS_64	UINT64CONST(0xCBF29CE484222325)
#define FNV_PRIME_64		UINT64CONST(1099511628211)

/* The scrambled mode permutes 63-bit numbers: these are its constants. */
#define MASK63				UINT64CONST(0x7FFFFFFFFFFFFFFF)
#define SCRAMBLE_XOR		UINT64CONST(0x2545F4914F6CDD1D)
#define SCRAMBLE_MUL1		UINT64CONST(0x3F58476D1CE4E5B9)
#define SCRAMBLE_MUL2		UINT64CONST(0x14D049BB133111EB)

static const struct
{
	const char *name;
	KeyMode		mode;
}			key_modes[] =

{
	{"ordered", KEYS_ORDERED},
	{"scrambled", KEYS_SCRAMBLED},
	{"ycsb", KEYS_YCSB},
	{"go-ycsb", KEYS_GO_YCSB},
};

/* Look a key mode up by name, or raise an error naming the valid ones. */
static KeyMode
keys_lookup_mode(const char *name)
{
	for (int i = 0; i < lengthof(key_modes); i++)
		if (strcmp(name, key_modes[i].name) == 0)
			return key_modes[i].mode;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown key mode \"%s\"", name),
			 errhint("Valid key modes are \"ordered\", \"scrambled\", \"ycsb\" and \"go-ycsb\".")));
	pg_unreachable();
}

/* The SQL name of a key mode. */
const char *
keys_mode_name(KeyMode mode)
{
	for (int i = 0; i < lengthof(key_modes); i++)
		if (key_modes[i].mode == mode)
			return key_modes[i].name;
	elog(ERROR, "unrecognized key mode %d", (int) mode);
	pg_unreachable();
}

/* Validate a mode name, prefix and zero padding into a KeySpec. */
void
keys_init_spec(KeySpec *spec, const char *mode, const char *prefix,
			   int zeropadding)
{
	size_t		prefixlen = strlen(prefix);

	spec->mode = keys_lookup_mode(mode);
	if (prefixlen > KEYS_MAX_PREFIX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key prefix is too long"),
				 errdetail("The prefix has %zu bytes; at most %d are allowed.",
						   prefixlen, KEYS_MAX_PREFIX)));
	if (zeropadding < 1 || zeropadding > KEYS_MAX_ZEROPADDING)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("zeropadding must be between 1 and %d, not %d",
						KEYS_MAX_ZEROPADDING, zeropadding),
				 errhint("YCSB's default zeropadding is 1: no padding.")));
	spec->kind = KEYKIND_TEXT;
	spec->zeropadding = zeropadding;
	spec->prefixlen = (int) prefixlen;
	memcpy(spec->prefix, prefix, prefixlen + 1);
}

/* The key kind of a ycsb_key of type typid; text for any non-integer type. */
KeyKind
keys_kind_of_type(Oid typid)
{
	if (typid == INT4OID)
		return KEYKIND_INT4;
	if (typid == INT8OID)
		return KEYKIND_INT8;
	return KEYKIND_TEXT;
}

/* The SQL type keys of a kind are Datums of: text, int4 or int8. */
Oid
keys_type(KeyKind kind)
{
	switch (kind)
	{
		case KEYKIND_INT4:
			return INT4OID;
		case KEYKIND_INT8:
			return INT8OID;
		case KEYKIND_TEXT:
			break;
	}
	return TEXTOID;
}

/* Raise the error for a key option given with an integer ycsb_key. */
static void
keys_option_refused(KeyKind kind, const char *option, const char *table)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option %s does not apply to the integer ycsb_key of \"%s\"",
					option, table),
			 errdetail("Column ycsb_key is %s: its keys are the key numbers themselves, as BenchBase loads them.",
					   format_type_be(keys_type(kind))),
			 errhint("Leave out keys, prefix and zeropadding, or make ycsb_key text or varchar to spell keys as YCSB does.")));
}

/*
 * Adopt the kind of a table's ycsb_key into spec, unchecked (a job read
 * back from the ledger, checked when it started): an integer key is the
 * number itself, mode ordered.
 */
void
keys_adopt_kind(KeySpec *spec, KeyKind kind)
{
	spec->kind = kind;
	if (kind != KEYKIND_TEXT)
		spec->mode = KEYS_ORDERED;
}

/*
 * Adopt the kind of table's ycsb_key into spec.  An integer key takes no
 * key options: a mode other than the default scrambled (or ordered, which
 * it is), a prefix other than the default or zero padding is refused.
 */
void
keys_set_kind(KeySpec *spec, KeyKind kind, const char *table)
{
	if (kind != KEYKIND_TEXT)
	{
		if (spec->mode != KEYS_SCRAMBLED && spec->mode != KEYS_ORDERED)
			keys_option_refused(kind, psprintf("keys => '%s'",
											   keys_mode_name(spec->mode)), table);
		/* "user": the default prefix of every SQL function (spec.h) */
		if (strcmp(spec->prefix, "user") != 0)
			keys_option_refused(kind, psprintf("prefix => '%s'", spec->prefix),
								table);
		if (spec->zeropadding != 1)
			keys_option_refused(kind, psprintf("zeropadding => %d",
											   spec->zeropadding), table);
	}
	keys_adopt_kind(spec, kind);
}

/* The largest key number the key column holds. */
int64
keys_max_seq(const KeySpec *spec)
{
	return spec->kind == KEYKIND_INT4 ? PG_INT32_MAX : KEYS_MAX_SEQ;
}

/* Raise an error unless seq is a key number: 0 .. 2^63-1. */
void
keys_check_seq(int64 seq)
{
	if (seq < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("key number " INT64_FORMAT " is out of range", seq),
				 errdetail("Key numbers run from 0 to " INT64_FORMAT ".",
						   KEYS_MAX_SEQ)));
}

/* FNV-1a 64 over the eight bytes of v, lowest first or highest first. */
static uint64
keys_fnv1a64(uint64 v, bool big_endian)
{
	uint64		h = FNV_OFFSET_BASIS_64;

	for (int i = 0; i < 8; i++)
	{
		int			shift = big_endian ? 56 - 8 * i : 8 * i;

		h ^= (v >> shift) & 0xFF;
		h *= FNV_PRIME_64;
	}
	return h;
}

/* x ^= x >> s, undone within 63 bits. */
static uint64
keys_unxorshift(uint64 y, int s)
{
	uint64		x = y;

	for (int done = s; done < 63; done += s)
		x = y ^ (x >> s);
	return x;
}

/* The multiplicative inverse of an odd number modulo 2^64 (Newton). */
static uint64
keys_mul_inverse(uint64 k)
{
	uint64		inv = k;

	for (int i = 0; i < 6; i++)
		inv *= 2 - k * inv;
	return inv;
}

/* The scrambled mode's permutation of 0 .. 2^63-1. */
static uint64
keys_scramble(uint64 x)
{
	x ^= SCRAMBLE_XOR;
	x ^= x >> 30;
	x = (x * SCRAMBLE_MUL1) & MASK63;
	x ^= x >> 27;
	x = (x * SCRAMBLE_MUL2) & MASK63;
	x ^= x >> 31;
	return x;
}

/* The inverse of keys_scramble(). */
static uint64
keys_unscramble(uint64 x)
{
	x = keys_unxorshift(x, 31);
	x = (x * keys_mul_inverse(SCRAMBLE_MUL2)) & MASK63;
	x = keys_unxorshift(x, 27);
	x = (x * keys_mul_inverse(SCRAMBLE_MUL1)) & MASK63;
	x = keys_unxorshift(x, 30);
	return x ^ SCRAMBLE_XOR;
}

/* The signed value a mode spells for key number seq. */
static int64
keys_value(KeyMode mode, int64 seq)
{
	uint64		h;

	switch (mode)
	{
		case KEYS_ORDERED:
			return seq;
		case KEYS_SCRAMBLED:
			return (int64) keys_scramble((uint64) seq);
		case KEYS_YCSB:
		case KEYS_GO_YCSB:
			h = keys_fnv1a64((uint64) seq, mode == KEYS_GO_YCSB);
			/* abs() of a signed 64-bit value, which leaves -2^63 alone */
			return (int64) h < 0 ? (int64) (UINT64CONST(0) - h) : (int64) h;
	}
	pg_unreachable();
}

/* YCSB's Utils.fnvhash64(v): FNV-1a 64 lowest byte first, then Math.abs(). */
int64
keys_ycsb_hash(int64 v)
{
	return keys_value(KEYS_YCSB, v);
}

/* Spell a value as YCSB does: prefix, zero padding, decimal; returns length. */
static int
keys_render(const KeySpec *spec, int64 value, char *dst)
{
	char		digits[24];
	bool		neg = value < 0;
	uint64		magnitude = neg ? UINT64CONST(0) - (uint64) value : (uint64) value;
	int			ndigits = pg_ulltoa_n(magnitude, digits);
	int			fill = spec->zeropadding - ndigits - (neg ? 1 : 0);
	char	   *p = dst;

	memcpy(p, spec->prefix, spec->prefixlen);
	p += spec->prefixlen;
	/* go-ycsb pads behind the sign, the Java client in front of it */
	if (neg && spec->mode == KEYS_GO_YCSB)
		*p++ = '-';
	for (; fill > 0; fill--)
		*p++ = '0';
	if (neg && spec->mode != KEYS_GO_YCSB)
		*p++ = '-';
	memcpy(p, digits, ndigits);
	p += ndigits;
	*p = '\0';
	return (int) (p - dst);
}

/*
 * Write the text of the key of number seq into dst (KEYS_MAX_LEN + 1
 * bytes); returns its length.  An integer key's text is its number.
 */
int
keys_format(const KeySpec *spec, int64 seq, char *dst)
{
	if (spec->kind != KEYKIND_TEXT)
		return pg_lltoa(seq, dst);
	return keys_render(spec, keys_value(spec->mode, seq), dst);
}

/*
 * The key of number seq as a Datum of the key column's type; a text key
 * is built in buf (KEYS_DATUM_BUFSIZE bytes, int-aligned) and points there.
 */
Datum
keys_datum(const KeySpec *spec, int64 seq, char *buf)
{
	switch (spec->kind)
	{
		case KEYKIND_INT4:
			Assert(seq <= PG_INT32_MAX);
			return Int32GetDatum((int32) seq);
		case KEYKIND_INT8:
			return Int64GetDatum(seq);
		case KEYKIND_TEXT:
			break;
	}
	SET_VARSIZE(buf, VARHDRSZ + keys_format(spec, seq, buf + VARHDRSZ));
	return PointerGetDatum(buf);
}

/*
 * Sort images: the order of text keys as bytes (memcmp, then length), in
 * an integer.  The keys of the ordered and scrambled modes are the prefix,
 * the same for every key, then the decimal digits of a value below 2^63,
 * zero-padded to at least zeropadding digits: as bytes they sort as their
 * digit strings do, a string before the strings it begins.  Read as a
 * fraction, a string of n <= 19 digits is its value times 10^(19 - n),
 * below 10^19 < 2^64.  Two strings that differ at some digit sort as
 * their numbers do, and a string that begins another has the smaller
 * number, or the same one (when the rest of the other is zeros) and fewer
 * digits.  So the image (that number, n), compared by number and
 * then by n, orders keys as bytes.  With zeropadding > 19 every key has
 * zeropadding digits, and the image is the value itself.  The image gives
 * the value back, and so the key: keys_datum_of_image().
 */

/* The most digits of a value below 2^63, and 10^0 .. 10^19. */
#define KEYS_IMAGE_DIGITS	19
static const uint64 keys_pow10[KEYS_IMAGE_DIGITS + 1] = {
	UINT64CONST(1), UINT64CONST(10), UINT64CONST(100), UINT64CONST(1000),
	UINT64CONST(10000), UINT64CONST(100000), UINT64CONST(1000000),
	UINT64CONST(10000000), UINT64CONST(100000000),
	UINT64CONST(1000000000), UINT64CONST(10000000000),
	UINT64CONST(100000000000), UINT64CONST(1000000000000),
	UINT64CONST(10000000000000), UINT64CONST(100000000000000),
	UINT64CONST(1000000000000000), UINT64CONST(10000000000000000),
	UINT64CONST(100000000000000000), UINT64CONST(1000000000000000000),
	UINT64CONST(10000000000000000000)
};

/* Do the keys of spec have sort images: text keys of ordered or scrambled? */
bool
keys_have_sort_image(const KeySpec *spec)
{
	return spec->kind == KEYKIND_TEXT &&
		(spec->mode == KEYS_ORDERED || spec->mode == KEYS_SCRAMBLED);
}

/*
 * The sort image of the key of number seq (keys_have_sort_image()): the
 * number returned, and the count of its digits in *ndigits.
 */
uint64
keys_sort_image(const KeySpec *spec, int64 seq, int *ndigits)
{
	uint64		value = (uint64) keys_value(spec->mode, seq);
	int			n = KEYS_IMAGE_DIGITS;

	Assert(keys_have_sort_image(spec));
	*ndigits = spec->zeropadding;
	if (spec->zeropadding > KEYS_IMAGE_DIGITS)
		return value;
	while (n > spec->zeropadding && value < keys_pow10[n - 1])
		n--;
	*ndigits = n;
	return value * keys_pow10[KEYS_IMAGE_DIGITS - n];
}

/*
 * The key whose sort image is (image, ndigits) as keys_datum() gives it,
 * built in buf (KEYS_DATUM_BUFSIZE bytes, int-aligned).
 */
Datum
keys_datum_of_image(const KeySpec *spec, uint64 image, int ndigits, char *buf)
{
	uint64		value = image;

	if (ndigits < KEYS_IMAGE_DIGITS)
		value /= keys_pow10[KEYS_IMAGE_DIGITS - ndigits];
	SET_VARSIZE(buf, VARHDRSZ + keys_render(spec, (int64) value, buf + VARHDRSZ));
	return PointerGetDatum(buf);
}

/* Are two keys of kind (not NULL; text ones maybe toasted) the same key? */
bool
keys_equal(KeyKind kind, Datum a, Datum b)
{
	text	   *x;
	text	   *y;

	if (kind == KEYKIND_INT4)
		return DatumGetInt32(a) == DatumGetInt32(b);
	if (kind == KEYKIND_INT8)
		return DatumGetInt64(a) == DatumGetInt64(b);
	x = DatumGetTextPP(a);
	y = DatumGetTextPP(b);
	return VARSIZE_ANY_EXHDR(x) == VARSIZE_ANY_EXHDR(y) &&
		memcmp(VARDATA_ANY(x), VARDATA_ANY(y), VARSIZE_ANY_EXHDR(x)) == 0;
}

/*
 * The text of a key Datum of kind (not NULL; a text one not toasted):
 * *chars points to it, in the Datum or in buf (KEYS_MAX_LEN + 1 bytes);
 * returns its length.  The same text keys_format() gives the key's number.
 */
int
keys_datum_chars(KeyKind kind, Datum key, char *buf, const char **chars)
{
	switch (kind)
	{
		case KEYKIND_INT4:
			*chars = buf;
			return pg_ltoa(DatumGetInt32(key), buf);
		case KEYKIND_INT8:
			*chars = buf;
			return pg_lltoa(DatumGetInt64(key), buf);
		case KEYKIND_TEXT:
			break;
	}
	*chars = VARDATA_ANY(DatumGetPointer(key));
	return VARSIZE_ANY_EXHDR(DatumGetPointer(key));
}

/* The longest key this spec spells for numbers 0 .. last_seq, in characters. */
int
keys_max_chars(const KeySpec *spec, int64 last_seq)
{
	if (spec->kind != KEYKIND_TEXT)
		return keys_max_len(spec, last_seq);
	return keys_max_len(spec, last_seq) - spec->prefixlen +
		pg_mbstrlen_with_len(spec->prefix, spec->prefixlen);
}

/* The longest key this spec spells for numbers 0 .. last_seq, in bytes. */
int
keys_max_len(const KeySpec *spec, int64 last_seq)
{
	char		digits[24];
	int			ndigits;

	if (spec->kind != KEYKIND_TEXT)
		return pg_lltoa(last_seq, digits);
	switch (spec->mode)
	{
		case KEYS_ORDERED:
			ndigits = pg_ulltoa_n((uint64) last_seq, digits);
			break;
		case KEYS_SCRAMBLED:
			ndigits = 19;		/* values below 2^63 */
			break;
		default:
			ndigits = 20;		/* "-9223372036854775808" */
			break;
	}
	return spec->prefixlen + Max(spec->zeropadding, ndigits);
}

/* Raise the error for a text that is not a key of this spec. */
static void
keys_not_a_key(const KeySpec *spec, const char *key, int len)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("\"%.*s\" is not a key of mode \"%s\"", len, key,
					keys_mode_name(spec->mode)),
			 errdetail("Keys of this mode are \"%s\" followed by a decimal number zero-padded to %d digits.",
					   spec->prefix, spec->zeropadding),
			 errhint("Pass the keys, prefix and zeropadding options the key was made with.")));
}

/* The key number of a key; only the ordered and scrambled modes invert. */
int64
keys_parse(const KeySpec *spec, const char *key, int len)
{
	uint64		value = 0;
	char		again[KEYS_MAX_LEN + 1];

	if (spec->mode == KEYS_YCSB || spec->mode == KEYS_GO_YCSB)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("keys of mode \"%s\" cannot be turned back into key numbers",
						keys_mode_name(spec->mode)),
				 errdetail("This mode hashes the key number with FNV-1a, which cannot be inverted."),
				 errhint("Use keys => 'scrambled' for hashed-looking keys that petagen.seq() inverts.")));
	if (len <= spec->prefixlen || len > KEYS_MAX_LEN ||
		memcmp(key, spec->prefix, spec->prefixlen) != 0)
		keys_not_a_key(spec, key, len);
	for (int i = spec->prefixlen; i < len; i++)
	{
		if (key[i] < '0' || key[i] > '9' || value > KEYS_MAX_SEQ / 10)
			keys_not_a_key(spec, key, len);
		value = value * 10 + (key[i] - '0');
		if (value > KEYS_MAX_SEQ)
			keys_not_a_key(spec, key, len);
	}
	/* only the canonical spelling is a key: no extra or missing zeros */
	if (keys_render(spec, (int64) value, again) != len ||
		memcmp(again, key, len) != 0)
		keys_not_a_key(spec, key, len);
	if (spec->mode == KEYS_SCRAMBLED)
		return (int64) keys_unscramble(value);
	return (int64) value;
}
