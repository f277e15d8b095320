/* hash.h: hash tables (eq, eql, equal, equalp) and the equality predicates and hashes they rest on. */
#ifndef TINYCL_HASH_H
#define TINYCL_HASH_H

#include "state.h"

Obj hash_new(Lisp *L, HashTest test, size_t size);
Obj hash_get(Lisp *L, Obj table, Obj key, Obj dflt);
void hash_put(Lisp *L, Obj table, Obj key, Obj value);
bool hash_remove(Lisp *L, Obj table, Obj key);
void hash_clear(Lisp *L, Obj table);

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
