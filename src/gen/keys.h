/*-------------------------------------------------------------------------
 * keys.h
 *		Key modes: key number -> ycsb_key text, and back where possible;
 *		integer keys: the key number itself.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_KEYS_H
#define PETAGEN_KEYS_H

/* Largest key number of every mode: the key space is 0 .. 2^63-1. */
#define KEYS_MAX_SEQ		PG_INT64_MAX
/* Bounds on the options, so that a key always fits a small buffer. */
#define KEYS_MAX_PREFIX		64
#define KEYS_MAX_ZEROPADDING 64
/* Longest key: prefix, sign, and 20 digits or the zero padding. */
#define KEYS_MAX_LEN		(KEYS_MAX_PREFIX + 1 + KEYS_MAX_ZEROPADDING)

typedef enum KeyMode
{
	KEYS_ORDERED,				/* prefix + zero-padded number (YCSB ordered) */
	KEYS_SCRAMBLED,				/* prefix + bijective permutation of number */
	KEYS_YCSB,					/* Java YCSB hashed: FNV-1a 64 little-endian */
	KEYS_GO_YCSB				/* go-ycsb hashed: FNV-1a 64 big-endian */
} KeyMode;

/*
 * The type of the table's ycsb_key: text (text or varchar), spelled by the
 * mode, or integer (BenchBase's int, or bigint), the key number itself.
 */
typedef enum KeyKind
{
	KEYKIND_TEXT,
	KEYKIND_INT4,
	KEYKIND_INT8
} KeyKind;

/* Bytes keys_datum() needs for a key of any kind. */
#define KEYS_DATUM_BUFSIZE	(VARHDRSZ + KEYS_MAX_LEN + 1)

/*
 * How keys are spelled: the mode and its rendering options, and the kind
 * of the key column (keys_init_spec(): text; keys_set_kind() adopts a
 * table's).  Only text keys are spelled: the options do not apply to
 * integer keys.
 */
typedef struct KeySpec
{
	KeyKind		kind;
	KeyMode		mode;
	int			zeropadding;
	int			prefixlen;
	char		prefix[KEYS_MAX_PREFIX + 1];
} KeySpec;

extern void keys_init_spec(KeySpec *spec, const char *mode,
						   const char *prefix, int zeropadding);
extern const char *keys_mode_name(KeyMode mode);
extern KeyKind keys_kind_of_type(Oid typid);
extern void keys_adopt_kind(KeySpec *spec, KeyKind kind);
extern void keys_set_kind(KeySpec *spec, KeyKind kind, const char *table);
extern Oid	keys_type(KeyKind kind);
extern int64 keys_max_seq(const KeySpec *spec);
extern int	keys_format(const KeySpec *spec, int64 seq, char *dst);
extern Datum keys_datum(const KeySpec *spec, int64 seq, char *buf);
extern bool keys_have_sort_image(const KeySpec *spec);
extern uint64 keys_sort_image(const KeySpec *spec, int64 seq, int *ndigits);
extern Datum keys_datum_of_image(const KeySpec *spec, uint64 image,
								 int ndigits, char *buf);
extern bool keys_equal(KeyKind kind, Datum a, Datum b);
extern int	keys_datum_chars(KeyKind kind, Datum key, char *buf,
							 const char **chars);
extern int	keys_max_len(const KeySpec *spec, int64 last_seq);
extern int	keys_max_chars(const KeySpec *spec, int64 last_seq);
extern int64 keys_parse(const KeySpec *spec, const char *key, int len);
extern void keys_check_seq(int64 seq);
extern int64 keys_ycsb_hash(int64 v);

#endif							/* PETAGEN_KEYS_H */
