/* server.c: `tinycl mcp`, the MCP server over stdio (JSON-RPC 2.0, one message per line). */
#include "tinycl.h"
#include "../cli.h"
#include <stdio.h>

int mcp_run(const CliOptions *opt) {
    (void)opt;
    fputs("tinycl: the MCP server is not built yet\n", stderr);
    return 2;
}
