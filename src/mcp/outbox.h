/* outbox.h: the messages a session's server sends unasked (notifications/message), kept for the
 * Streamable HTTP GET stream: numbered for Last-Event-ID, the newest MCP_OUTBOX_KEEP kept. */
#ifndef TINYCL_MCP_OUTBOX_H
#define TINYCL_MCP_OUTBOX_H

#include <cJSON.h>
#include <pthread.h>
#include <stdbool.h>

#define MCP_OUTBOX_KEEP 256

typedef struct McpOutbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;             /* a message came, a newer stream took over, or the session ended */
    char *text[MCP_OUTBOX_KEEP];     /* wire text of message n at [n % MCP_OUTBOX_KEEP] */
    unsigned long long next;         /* the number the next message gets (the first is 1) */
    unsigned long long delivered;    /* messages below this were written to some stream */
    int log_level;                   /* index of the least level sent (logging/setLevel) */
    unsigned stream;                 /* the current GET stream; an older one ends */
    bool closed;                     /* the session ended: streams end */
} McpOutbox;

void mcp_outbox_init(McpOutbox *o);
void mcp_outbox_free(McpOutbox *o);
void mcp_outbox_close(McpOutbox *o);
/* The index of a log level's name (debug .. emergency), or -1. */
int mcp_log_level_index(const char *name);
/* A notifications/message of LEVEL from LOGGER carrying TEXT (the caller deletes it); the stdio
 * server sends it, an HTTP session keeps it in its outbox. */
cJSON *mcp_log_message_json(const char *level, const char *logger, const char *text);
/* Keep a notifications/message of LEVEL from LOGGER when the level is at or above the one set. */
void mcp_outbox_log(McpOutbox *o, const char *level, const char *logger, const char *text);

/* A GET stream's reading end: the number of the next message it writes. */
typedef struct McpOutboxReader {
    McpOutbox *box;
    unsigned stream;
    unsigned long long at;
} McpOutboxReader;
/* Begin a stream (an older one of the same outbox ends): after message LAST_ID when the client
 * resumes (Last-Event-ID; 0: none), else from the first message no stream has had. */
void mcp_outbox_attach(McpOutbox *o, McpOutboxReader *r, unsigned long long last_id);
/* The next SSE event for R (malloc'd, "id: N" included), waiting up to WAIT_MS; NULL with *ENDED
 * false when nothing came in time, NULL with *ENDED true when the stream is over. */
char *mcp_outbox_next(McpOutboxReader *r, double wait_ms, bool *ended);

#endif
