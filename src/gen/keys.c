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
 * The SQL functions petagen.key() and petagen.seq() are in keys_sql.c.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"

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
	spec->zeropadding = zeropadding;
	spec->prefixlen = (int) prefixlen;
	memcpy(spec->prefix, prefix, prefixlen + 1);
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

/* Write the key of number seq into dst (KEYS_MAX_LEN + 1 bytes); returns length. */
int
keys_format(const KeySpec *spec, int64 seq, char *dst)
{
	return keys_render(spec, keys_value(spec->mode, seq), dst);
}

/* The longest key this spec spells for numbers 0 .. last_seq, in characters. */
int
keys_max_chars(const KeySpec *spec, int64 last_seq)
{
	return keys_max_len(spec, last_seq) - spec->prefixlen +
		pg_mbstrlen_with_len(spec->prefix, spec->prefixlen);
}

/* The longest key this spec spells for numbers 0 .. last_seq, in bytes. */
int
keys_max_len(const KeySpec *spec, int64 last_seq)
{
	char		digits[24];
	int			ndigits;

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
