/* imagestats.h: what an image is made of, by kind of block and by owner (TINYCL_IMAGE_STATS=1). */
#ifndef TINYCL_IMAGESTATS_H
#define TINYCL_IMAGESTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The writer (image.c) tallies every block it writes when TINYCL_IMAGE_STATS is set in the
 * environment, and prints the tally on stderr when it is done: `TINYCL_IMAGE_STATS=1
 * build/tinycl-stage0 --write-boot-image /tmp/x`. A block's kind is its Lisp type when it starts
 * with a Lisp header, "cons" for a cons packed in two words, "node" for a node of an analysed tree
 * (its first word is an evaluator), "C structure" for any other block of the evaluator's, and
 * "pointer-free" for string data and bignum limbs. Its owner is the kind of the first non-cons
 * block through which the writer reached it (the conses of a source form are owned by the Lambda
 * that keeps it, say: "C structure"; those of a property list by a SYMBOL), which says whose
 * data the bulk of conses and C structures is.
 */

enum { IMAGESTATS_CONS = 64, IMAGESTATS_NODE, IMAGESTATS_CSTRUCT, IMAGESTATS_ATOMIC, IMAGESTATS_ROOT,
       IMAGESTATS_KINDS };

bool imagestats_enabled(void);
/* The kind of a block of SIZE bytes at BASE: a Lisp type (1..T_COUNT-1) or one of the above. */
int imagestats_kind(uintptr_t base, size_t size, bool cons, bool atomic, bool node);
/* A block of kind KIND reached through a block owned by OWNER; TRAILING: its trailing zero bytes. */
void imagestats_add(int kind, int owner, size_t size, size_t trailing);
/* Print the tally (PARTS: the sizes of the image's parts) and clear it. */
void imagestats_print(FILE *out, size_t scanned, size_t atomic, size_t bitmaps, size_t links, size_t total);

#endif
