/* bootlayout.h: the objects of the boot image a start touches, written first and uncompressed. */
#ifndef TINYCL_BOOTLAYOUT_H
#define TINYCL_BOOTLAYOUT_H

#include "state.h"

/* The addresses of the objects (and of their blocks' data) a start of an interpreter loaded from
 * the image reads, for image_write_layout: a malloc'd array, *N of them (NULL when out of memory,
 * which only makes the image slower to start). ROOTS: the words written as the image's roots. */
/* Analyse the functions every start runs that are still to be analysed (on their first call): call
 * it before the image's start-up snapshot is taken, since analysis may change symbols. */
void bootlayout_prepare(Lisp *L);
uintptr_t *bootlayout_hot(Lisp *L, const uintptr_t *roots, size_t nroots, size_t *n);

#endif
