/* mhd.h: the few functions of libmicrohttpd that `tinycl mcp --http` uses, looked up when it starts. */
#ifndef TINYCL_MCP_MHD_H
#define TINYCL_MCP_MHD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

/* The library is not linked into the executable: with GnuTLS and the eight libraries behind it,
 * it was about a quarter of every start's instructions and 2.5 MiB of its memory, for a
 * transport most runs never open. mcp_mhd_load opens it once; the types are microhttpd.h's. */
typedef struct MhdApi {
    struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                       MHD_AccessHandlerCallback dh, void *dh_cls, ...);
    MHD_socket (*quiesce_daemon)(struct MHD_Daemon *daemon);
    void (*stop_daemon)(struct MHD_Daemon *daemon);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *daemon, enum MHD_DaemonInfoType type, ...);
    const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind, const char *key);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c, enum MHD_ConnectionInfoType type, ...);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
    struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size, MHD_ContentReaderCallback crc,
                                                          void *crc_cls, MHD_ContentReaderFreeCallback crfc);
    enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header, const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status, struct MHD_Response *r);
    void (*destroy_response)(struct MHD_Response *r);
} MhdApi;

extern MhdApi mhd;

/* Open the library and fill `mhd`: true, or false with ERR (ERRLEN bytes) saying what is missing. */
bool mcp_mhd_load(char *err, size_t errlen);

#endif
