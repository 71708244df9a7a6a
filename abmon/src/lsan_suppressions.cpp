// libpvm keeps some buffers for the life of the process (a direct route's
// fragment in mroute, the mailbox reply) and never frees them; with
// -fsanitize=address, LeakSanitizer would fail abmon at exit for PVM's
// leaks.  Only consulted when built with a sanitizer.
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() { return "leak:libpvm3\n"; }
