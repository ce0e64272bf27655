#include "tools/commands.h"
/* placeholder: being written */ typedef int placeholder_cmd_dump_t;
int cmd_dump(int argc, char **argv) { (void)argc; (void)argv; return 0; }
