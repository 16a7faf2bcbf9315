#ifndef ACTIVITYPUSH_CCURL_SHIM_H
#define ACTIVITYPUSH_CCURL_SHIM_H
#include <curl/curl.h>
/* curl_easy_setopt / curl_multi_setopt are variadic macros Swift cannot call; these typed wrappers can. */
static inline CURLcode ap_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ap_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ap_curl_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ap_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ap_curl_easy_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode ap_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ap_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode ap_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
/* ActivityPushAPNs additions */
#include <sys/select.h>
/* Waits up to timeout_ms for any socket libcurl reads to become readable (curl_multi_fdset + select).
   Used when libcurl asks to run again at once but nothing progressed (e.g. uploads blocked by HTTP/2 flow
   control until the peer's WINDOW_UPDATE arrives), so the event loop sleeps instead of spinning.
   Returns -1 when libcurl has no socket to watch. */
static inline int ap_curl_multi_wait_readable(CURLM *m, int timeout_ms) {
  fd_set r, w, e; int maxfd = -1;
  FD_ZERO(&r); FD_ZERO(&w); FD_ZERO(&e);
  if (curl_multi_fdset(m, &r, &w, &e, &maxfd) != CURLM_OK || maxfd < 0) return -1;
  struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
  return select(maxfd + 1, &r, NULL, NULL, &tv);
}
static inline CURLcode ap_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline long ap_curl_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
static inline long ap_curl_http_version_2_prior_knowledge(void) { return CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE; }
static inline int ap_curl_has_http2(void) { curl_version_info_data *d = curl_version_info(CURLVERSION_NOW); return d && (d->features & CURL_VERSION_HTTP2) ? 1 : 0; }
static inline unsigned int ap_curl_version_num(void) { curl_version_info_data *d = curl_version_info(CURLVERSION_NOW); return d ? d->version_num : 0; }
static inline CURLcode ap_curl_easy_setopt_seek(CURL *h, int (*f)(void *, curl_off_t, int)) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline long ap_curlpipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
static inline CURL *ap_curlmsg_done_handle(CURLMsg *m, CURLcode *result) {
  if (m->msg != CURLMSG_DONE) return NULL;
  *result = m->data.result;
  return m->easy_handle;
}
#endif
