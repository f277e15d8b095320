/* imagetab.h: the declared tables of C addresses (primitives, node evaluators) an image names by index. */
#ifndef TINYCL_IMAGETAB_H
#define TINYCL_IMAGETAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An image cannot hold a C address as such: the executable that reads it may have its functions
 * elsewhere. Every C address a graph may reach (a primitive's function, its lambda list and
 * documentation strings, a node's evaluator) is a field of a row of a declared table, and the image
 * names it as (table, row, field); runtime/image.c writes that key beside the word and the reader
 * turns it back into this executable's address. The tables are listed in one registry
 * (imagetab.c): the primitive tables of the runtime's modules, the evaluator tables of the
 * evaluator, and the tables a front end adds with imagetab_add (the session's primitives).
 */

/* One declared table: rows of STRIDE bytes from ROWS, ended by a row whose name (the const char *
 * at NAME_AT) is NULL; FIELDS are the offsets in a row of the pointers an image may hold. */
typedef struct ImageTable {
    const char *name;
    const void *rows;
    size_t stride, name_at;
    uint8_t nfields;
    uint16_t fields[3];
} ImageTable;

/* A key: table (bits 40..55), field (32..39), row (0..31). */
#define IMAGETAB_KEY(t, f, r) (((uint64_t)(t) << 40) | ((uint64_t)(f) << 32) | (uint64_t)(r))

/* Add the front end's tables (after the runtime's, in the order added; adding the same array twice
 * does nothing). Call it before an interpreter is made, so that every image of the process is
 * read and written with the same registry. */
void imagetab_add(const ImageTable *tables, size_t n);

/* Whether ROWS is the first row of a declared table (prims_register refuses a primitive table that
 * is not: an image holding one of its primitives could not be written). */
bool imagetab_declared(const void *rows);

/* The registry resolved: every address its rows hold, sorted, each with its key (the first row
 * that holds it), and a hash of the names of the tables and of their rows (what an index means). */
typedef struct ImageLinks {
    const uintptr_t *addrs; const uint64_t *keys; size_t n;
    const size_t *rows; size_t ntables;      /* the rows of each table */
    uint64_t names_hash;
} ImageLinks;
const ImageLinks *imagetab_links(void);
/* The index in imagetab_links() of ADDR, or -1 when no table holds it. */
long imagetab_find(const ImageLinks *links, uintptr_t addr);
/* This executable's address for KEY (LINKS: imagetab_links()); false (ERR saying which index is out of range, ERRLEN bytes)
 * when KEY names a table, a row or a field that does not exist. */
bool imagetab_resolve(const ImageLinks *links, uint64_t key, uintptr_t *addr, char *err, size_t errlen);

#endif
