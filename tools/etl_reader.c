/* placeholder: being written */ typedef int placeholder_etl_reader_t;
