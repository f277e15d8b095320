/* modules.h: the runtime modules whose primitives are registered at boot, in order. */
#ifndef TINYCL_MODULES_H
#define TINYCL_MODULES_H

#include "state.h"

/* Each module defines void <name>_init(Lisp *) that registers its primitive table. */
#define RUNTIME_MODULES(X) \
    X(symbol)              \
    X(package)             \
    X(evalprim)            \
    X(instance)            \
    X(clos)                \
    X(clos_select)         \
    X(clos_finalize)       \
    X(list)                \
    X(number)              \
    X(character)           \
    X(string)              \
    X(sequence)            \
    X(array)               \
    X(hash)                \
    X(weak)                \
    X(thread)              \
    X(stream)              \
    X(reader)              \
    X(printer)             \
    X(format)              \
    X(types)               \
    X(load)                \
    X(pathname)            \
    X(access)              \
    X(system)              \
    X(docs)                \
    X(snapshot)            \
    X(warnings)            \
    X(xref)                \
    X(fasl)                \
    X(xref_compile)

#define MODULE_DECL(name) void name##_init(Lisp *L);
RUNTIME_MODULES(MODULE_DECL)
#undef MODULE_DECL

/* Read and evaluate every form of TEXT (the stdlib at boot; see load.c). */
void load_source_text(Lisp *L, const char *name, const char *text, size_t len);

#endif
