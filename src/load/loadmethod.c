/*-------------------------------------------------------------------------
 * loadmethod.c
 *		The load methods petagen knows, looked up by the name
 *		petagen.jobs.method holds; see loadmethod.h for the interface.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "load/loadmethod.h"

/* method_chunk.c, method_leaf.c */
extern const LoadMethod load_method_chunk;
extern const LoadMethod load_method_leaf;

/* Every method, by name. */
static const LoadMethod *const load_methods[] = {
	&load_method_chunk,
	&load_method_leaf,
};

/* The method called name; an error if none is. */
const LoadMethod *
load_method_find(const char *name)
{
	for (int i = 0; i < lengthof(load_methods); i++)
		if (strcmp(load_methods[i]->name, name) == 0)
			return load_methods[i];
	elog(ERROR, "unknown load method \"%s\"", name);
	return NULL;				/* keep the compiler quiet */
}

/* The number of chunks of chunk_rows key numbers in 0 .. rows-1. */
int64
load_nchunks(int64 rows, int64 chunk_rows)
{
	return rows / chunk_rows + (rows % chunk_rows != 0);
}
