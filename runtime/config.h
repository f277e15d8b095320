/* config.h: the tunable limits and defaults, in one place, overridable per interpreter. */
#ifndef TINYCL_CONFIG_H
#define TINYCL_CONFIG_H

#include <stddef.h>

#define TINYCL_VERSION "0.1.0"

#define MULTIPLE_VALUES_LIMIT 4096
#define LAMBDA_PARAMETERS_LIMIT 4096
#define CALL_ARGUMENTS_LIMIT ((size_t)1 << 24)   /* APPLY refuses longer argument lists */
#define ARRAY_TOTAL_SIZE_LIMIT ((size_t)1 << 40)

typedef struct Config {
    size_t max_heap;            /* bytes; 0 = unlimited */
    size_t stack_headroom;      /* bytes kept free below the soft stack limit for handlers */
    size_t stack_reserve;       /* bytes at the very end nobody may use */
    double timeout;             /* seconds per top-level evaluation; 0 = none */
    size_t output_cap;          /* characters of captured output per call */
    long print_length;          /* result printing bounds */
    long print_level;
    size_t print_max_chars;
    int max_read_depth;         /* reader nesting */
} Config;

#define DEFAULT_MAX_HEAP ((size_t)1 << 30)
#define DEFAULT_STACK_HEADROOM ((size_t)4 << 20)
#define DEFAULT_STACK_RESERVE ((size_t)1 << 20)
#define DEFAULT_OUTPUT_CAP 100000
#define DEFAULT_PRINT_LENGTH 1000
#define DEFAULT_PRINT_LEVEL 100
#define DEFAULT_PRINT_MAX_CHARS 100000
#define DEFAULT_MAX_READ_DEPTH 10000
#define EVAL_THREAD_STACK ((size_t)64 << 20)

void config_defaults(Config *c);

#endif
