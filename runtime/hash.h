/* hash.h: hash tables (eq, eql, equal, equalp) and the equality predicates and hashes they rest on. */
#ifndef TINYCL_HASH_H
#define TINYCL_HASH_H

#include "state.h"

/* A weak table's flags (the header's): which of its entries' parts are held weakly. An entry whose
 * weak part was collected reads as absent. :KEY-OR-VALUE needs ephemerons, which the collector
 * lacks: such a table holds both parts (HT_WEAK_EITHER only records the weakness asked for). */
enum { HT_WEAK_KEY = 2, HT_WEAK_VALUE = 4, HT_WEAK_EITHER = 8, HT_WEAK = HT_WEAK_KEY | HT_WEAK_VALUE | HT_WEAK_EITHER };
static inline bool hash_weak_p(Obj table) { return ((HashTable *)table)->h.flags & HT_WEAK; }

Obj hash_new(Lisp *L, HashTest test, size_t size);
Obj hash_new_weak(Lisp *L, HashTest test, size_t size, uint8_t weakness);  /* HT_WEAK_* */
Obj hash_get(Lisp *L, Obj table, Obj key, Obj dflt);
void hash_put(Lisp *L, Obj table, Obj key, Obj value);
bool hash_remove(Lisp *L, Obj table, Obj key);
void hash_clear(Lisp *L, Obj table);
Obj hash_copy_entries(Lisp *L, Obj table);                 /* NIL for a weak table */
bool hash_restore_entries(Lisp *L, Obj table, Obj copy);  /* false: it held them already */

bool lisp_eql(Obj a, Obj b);
bool lisp_equal(Lisp *L, Obj a, Obj b);
bool lisp_equalp(Lisp *L, Obj a, Obj b);
uint64_t hash_eq(Obj o);
uint64_t hash_eql(Obj o);
uint64_t hash_equal(Lisp *L, Obj o);   /* sxhash */
uint64_t hash_equalp(Lisp *L, Obj o);

/* A table read back from an image (image.c): its hashes are recomputed on its first lookup. */
bool hash_address_free(Obj table);   /* whether none of its hashes depends on an address */
void hash_rehash_loaded(Lisp *L, Obj table);

#endif
