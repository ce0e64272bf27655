/* placeholder: being written */ typedef int placeholder_writer_t;
