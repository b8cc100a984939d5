/*-------------------------------------------------------------------------
 * keys_sql.c
 *		The key modes from SQL: petagen.key() and petagen.seq(), a key
 *		number to its ycsb_key and back (keys.c).
 *
 * Both are STRICT: their key mode, prefix and zeropadding are never NULL
 * and are read by spec.c's reader of the generation arguments.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "compat.h"
#include "gen/keys.h"
#include "gen/spec.h"

/* The arguments of key() and seq(), in SQL order. */
typedef enum KeyArg
{
	KEY_ARG_SEQ,				/* seq() takes the key here */
	KEY_ARG_KEYS,
	KEY_ARG_PREFIX,
	KEY_ARG_ZEROPADDING
} KeyArg;

#define KEY_ARG_KEY KEY_ARG_SEQ

/* Where key() and seq() declare the key spelling. */
static const GenArgs key_gen_args = SPEC_KEY_ARGS(KEY_ARG_);

PG_FUNCTION_INFO_V1(petagen_key);
/* petagen.key(seq, keys, prefix, zeropadding): the key of one key number. */
Datum
petagen_key(PG_FUNCTION_ARGS)
{
	int64		seq = PG_GETARG_INT64(KEY_ARG_SEQ);
	KeySpec		spec;
	char		buf[KEYS_MAX_LEN + 1];
	int			len;

	spec_read_keys(fcinfo, &key_gen_args, NULL, &spec);
	keys_check_seq(seq);
	len = keys_format(&spec, seq, buf);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, len));
}

PG_FUNCTION_INFO_V1(petagen_seq);
/* petagen.seq(key, keys, prefix, zeropadding): the key number of one key. */
Datum
petagen_seq(PG_FUNCTION_ARGS)
{
	text	   *key = PG_GETARG_TEXT_PP(KEY_ARG_KEY);
	KeySpec		spec;

	spec_read_keys(fcinfo, &key_gen_args, NULL, &spec);
	PG_RETURN_INT64(keys_parse(&spec, VARDATA_ANY(key),
							   VARSIZE_ANY_EXHDR(key)));
}
