/*
 * One function for the server: trim(), which asks glibc's malloc to give the free memory it holds back to the
 * system (malloc_trim(0)) and answers whether any was given back. Node has no call for it.
 *
 * Why: glibc keeps memory freed inside its arenas when memory still in use lies above it, and only malloc_trim
 * returns such holes. V8's compiler threads, optimizing PGlite's WebAssembly (PostgreSQL) during start-up, leave
 * 10 to 25 MB of them (docs/performance.md, Memory). The server calls trim() once, with its start-up garbage
 * collection (src/main.ts).
 *
 * Built by bin/build-native.js with the system's C compiler, without Node's headers: the few Node-API functions used
 * are declared below as Node's documentation gives them (Node-API is a stable C interface: a module built against
 * version 1 loads in every later Node). Elsewhere than glibc (musl, macOS) trim() answers false and does nothing.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#endif

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status; /* napi_ok is 0 */
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);

extern napi_status napi_get_boolean(napi_env env, bool value, napi_value *result);
extern napi_status napi_create_function(napi_env env, const char *utf8name, size_t length, napi_callback cb,
                                        void *data, napi_value *result);
extern napi_status napi_set_named_property(napi_env env, napi_value object, const char *utf8name, napi_value value);

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
#if defined(__GLIBC__)
  bool released = malloc_trim(0) == 1;
#else
  bool released = false;
#endif
  napi_value result = NULL;
  napi_get_boolean(env, released, &result);
  return result;
}

/* Node-API's entry point (what NAPI_MODULE_INIT declares): called with the module's exports when it is loaded. */
__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  napi_value fn = NULL;
  if (napi_create_function(env, "trim", (size_t)-1, trim, NULL, &fn) != 0) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != 0) return NULL;
  return exports;
}

/* The Node-API version this module is written for (1: every function above is in it). */
__attribute__((visibility("default"))) int node_api_module_get_api_version_v1(void) { return 1; }
