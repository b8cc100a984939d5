/*-------------------------------------------------------------------------
 * keys.h
 *		Key modes: key number -> ycsb_key text, and back where possible.
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

/* How keys are spelled: the mode and its rendering options. */
typedef struct KeySpec
{
	KeyMode		mode;
	int			zeropadding;
	int			prefixlen;
	char		prefix[KEYS_MAX_PREFIX + 1];
} KeySpec;

extern void keys_init_spec(KeySpec *spec, const char *mode,
						   const char *prefix, int zeropadding);
extern const char *keys_mode_name(KeyMode mode);
extern int	keys_format(const KeySpec *spec, int64 seq, char *dst);
extern int	keys_max_len(const KeySpec *spec, int64 last_seq);
extern int	keys_max_chars(const KeySpec *spec, int64 last_seq);
extern int64 keys_parse(const KeySpec *spec, const char *key, int len);
extern void keys_check_seq(int64 seq);
extern int64 keys_ycsb_hash(int64 v);

#endif							/* PETAGEN_KEYS_H */
