/* input.h: the server's input: newline-delimited messages, the size limit, UTF-8 validation. */
#ifndef TINYCL_MCP_INPUT_H
#define TINYCL_MCP_INPUT_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define MCP_DEFAULT_MAX_MESSAGE ((size_t)64 << 20)   /* bytes; `tinycl mcp --max-message SIZE` */

typedef struct McpInputHandlers {
    /* a complete message (without its newline; not NUL-terminated; valid until the call returns) */
    void (*line)(void *ctx, const char *text, size_t len);
    /* a message over the limit was dropped: HEAD holds its first bytes, TOTAL its length */
    void (*oversized)(void *ctx, const char *head, size_t head_len, size_t total);
    void *ctx;
} McpInputHandlers;

typedef struct McpInput {
    char *buf;                /* the message read so far */
    size_t len, cap;
    size_t max;               /* the longest message accepted, in bytes */
    bool skipping;            /* the current message is over the limit: dropped up to its newline */
    size_t skipped;           /* its length so far */
    char head[4096];          /* its first bytes, to find its id */
    size_t head_len;
} McpInput;

void mcp_input_init(McpInput *in, size_t max_message);
void mcp_input_free(McpInput *in);
/* Cut N more bytes of input into messages. Each byte is looked at once: a message that arrives
 * in many chunks costs time linear in its size. */
void mcp_input_feed(McpInput *in, const char *data, size_t n, const McpInputHandlers *h);

/* The offset of the first byte of S[0..N) that is not well-formed UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF included), or (size_t)-1 when all of it is. */
size_t mcp_utf8_invalid_at(const char *s, size_t n);

/* The id of a JSON-RPC request from the first bytes of its text (a top-level "id" member holding
 * a string or a number), or NULL; the caller deletes it. */
cJSON *mcp_input_find_id(const char *head, size_t n);

#endif
