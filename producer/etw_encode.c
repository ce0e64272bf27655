/* placeholder: being written */ typedef int placeholder_etw_encode_t;
