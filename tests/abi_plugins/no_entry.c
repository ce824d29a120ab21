/* A shared library that is not a pack: it exports a function, but no t2o_plugin_entry. */
#if defined(_WIN32)
__declspec(dllexport)
#endif
int t2o_test_not_a_plugin(void) { return 42; }
