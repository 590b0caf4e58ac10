/*
 * nodeatlas-cpuset-hook: an OCI hook (runtime-spec config.md, "POSIX-platform Hooks") that nodeatlas
 * names in the CDI spec of a claim holding CPU or hugepage shares. The runtime runs it as a
 * createRuntime hook: in the runtime namespace (the host), after the container's cgroup exists and
 * before the container runs the user's program. It reads the container state (runtime-spec
 * runtime.md "State", at most 16 MiB: CRI-O copies pod annotations into it) on stdin, parses it as
 * strict JSON and takes only its "pid" and "id" members, finds the container's cgroup
 * in /proc/<pid>/cgroup and writes the limits given as arguments:
 *
 *   --cpus=LIST                cpuset.cpus  (kernel list syntax, e.g. 0-3,8-11)
 *   --mems=LIST                cpuset.mems
 *   --hugetlb=PAGE:BYTES       hugetlb.<size>.max (cgroup v2) or hugetlb.<size>.limit_in_bytes (v1),
 *                              where the cgroup has the hugetlb controller; skipped where it has not
 *   --cgroup-root=DIR          default /sys/fs/cgroup   (tests)
 *   --proc-root=DIR            default /proc            (tests)
 *   --cgroup-version=1|2|auto  default auto: cgroup2 when DIR is a cgroup2 mount (statfs magic)
 *
 * File names and semantics: Documentation/admin-guide/cgroup-v2.rst ("Cpuset", "HugeTLB"),
 * Documentation/admin-guide/cgroup-v1/cpusets.rst and cgroup-v1/hugetlb.rst; the <size> spelling is
 * mm/hugetlb_cgroup.c's (KB, MB, GB). Every input is checked and bounded. The cgroup directory is
 * walked one component at a time with O_NOFOLLOW from the cgroup root, so no symbolic link is ever
 * followed, in or out of it. On failure: exit status 1 and one line on stderr.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* CRI-O copies the pod's annotations into the state (Kubernetes allows 256 KiB of them per object); far above. */
#define MAX_STATE (16 << 20)
#define MAX_CGROUP_FILE 65536
#define MAX_LIST 4096
#define MAX_CPU_ID (1 << 20)
#define MAX_HUGETLB 8
#define MAX_DEPTH 64
#define CGROUP2_MAGIC 0x63677270

static char container_id[257] = "?";

static void fail(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char *p = msg; *p; p++) {
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
  }
  fprintf(stderr, "nodeatlas-cpuset-hook: container %s: %s\n", container_id, msg);
  exit(1);
}

/* ---- the state JSON (RFC 8259), parsed strictly: a bounded recursive-descent reader that keeps two
 * top-level members and checks the rest: UTF-8 (8.1), escapes decoded (7) so "p\u0069d" is "pid",
 * only true/false/null and numbers of the grammar (6) as bare values, nothing after the object. ---- */

struct scan { const unsigned char *p, *end; int depth; };

static void ws(struct scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int hex4(const unsigned char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    unsigned c = p[i], d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return -1;
    v = v * 16 + d;
  }
  *out = v;
  return 0;
}

/* Appends code point cp as UTF-8 to out[*n] when it fits in cap (with the final NUL); else *fits = 0. */
static void put(char *out, size_t cap, size_t *n, int *fits, unsigned cp) {
  unsigned char b[4];
  size_t k;
  if (cp < 0x80) { b[0] = (unsigned char)cp; k = 1; }
  else if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); k = 2; }
  else if (cp < 0x10000) {
    b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp & 0x3F)); k = 3;
  } else {
    b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); k = 4;
  }
  if (*n + k + 1 > cap) { *fits = 0; return; }
  memcpy(out + *n, b, k);
  *n += k;
}

/*
 * A JSON string: no control characters, escapes of the grammar only, well-formed UTF-8 (no overlong
 * forms, no encoded surrogates, nothing above U+10FFFF). With out, its decoded text, NUL-terminated;
 * *fits = 0 when that text did not fit in cap, holds U+0000 or an unpaired surrogate escape.
 */
static int string(struct scan *s, char *out, size_t cap, int *fits) {
  size_t n = 0;
  *fits = 1;
  if (s->p >= s->end || *s->p != '"') return -1;
  s->p++;
  for (;;) {
    if (s->p >= s->end) return -1;
    unsigned c = *s->p, cp;
    if (c == '"') { s->p++; break; }
    if (c < 0x20) return -1;
    if (c == '\\') {
      if (s->end - s->p < 2) return -1;
      switch (s->p[1]) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
          if (s->end - s->p < 6 || hex4(s->p + 2, &cp) < 0) return -1;
          if (cp >= 0xD800 && cp <= 0xDBFF && s->end - s->p >= 12 && s->p[6] == '\\' && s->p[7] == 'u') {
            unsigned lo;
            if (hex4(s->p + 8, &lo) < 0) return -1;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              s->p += 6;
            }
          }
          s->p += 4;
          break;
        default:
          return -1;
      }
      s->p += 2;
      if (cp >= 0xD800 && cp <= 0xDFFF) { *fits = 0; continue; } /* valid JSON, but no text of it */
    } else if (c < 0x80) {
      cp = c;
      s->p++;
    } else {
      size_t k;
      unsigned min;
      if (c >= 0xC2 && c <= 0xDF) { k = 2; cp = c & 0x1F; min = 0x80; }
      else if (c >= 0xE0 && c <= 0xEF) { k = 3; cp = c & 0x0F; min = 0x800; }
      else if (c >= 0xF0 && c <= 0xF4) { k = 4; cp = c & 0x07; min = 0x10000; }
      else return -1;
      if ((size_t)(s->end - s->p) < k) return -1;
      for (size_t i = 1; i < k; i++) {
        if ((s->p[i] & 0xC0) != 0x80) return -1;
        cp = cp << 6 | (s->p[i] & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
      s->p += k;
    }
    if (out) {
      if (cp == 0) *fits = 0;
      else put(out, cap, &n, fits, cp);
    }
  }
  if (out) out[n] = 0;
  return 0;
}

/*
 * A number of the grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. *whole is set when it is a
 * non-negative integer of at most 18 digits, with its value in *value.
 */
static int number(struct scan *s, int *whole, long long *value) {
  const unsigned char *start = s->p;
  int neg = 0, digits = 0, frac = 0;
  long long v = 0;
  if (s->p < s->end && *s->p == '-') { neg = 1; s->p++; }
  if (s->p >= s->end || !isdigit(*s->p)) return -1;
  if (*s->p == '0') { s->p++; digits = 1; }
  else while (s->p < s->end && isdigit(*s->p)) { if (digits < 18) v = v * 10 + (*s->p - '0'); digits++; s->p++; }
  if (s->p < s->end && *s->p == '.') {
    s->p++;
    if (s->p >= s->end || !isdigit(*s->p)) return -1;
    while (s->p < s->end && isdigit(*s->p)) s->p++;
    frac = 1;
  }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
    s->p++;
    if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
    if (s->p >= s->end || !isdigit(*s->p)) return -1;
    while (s->p < s->end && isdigit(*s->p)) s->p++;
    frac = 1;
  }
  *whole = !neg && !frac && digits <= 18;
  *value = v;
  return s->p > start ? 0 : -1;
}

static int literal(struct scan *s, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) return -1;
  s->p += n;
  return 0;
}

static int value(struct scan *s);

static int container(struct scan *s, char close) {
  if (++s->depth > MAX_DEPTH) return -1;
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == close) { s->p++; s->depth--; return 0; }
  for (;;) {
    int fits;
    ws(s);
    if (close == '}') {
      if (string(s, NULL, 0, &fits) < 0) return -1;
      ws(s);
      if (s->p >= s->end || *s->p != ':') return -1;
      s->p++;
    }
    if (value(s) < 0) return -1;
    ws(s);
    if (s->p < s->end && *s->p == ',') { s->p++; continue; }
    if (s->p < s->end && *s->p == close) { s->p++; s->depth--; return 0; }
    return -1;
  }
}

static int value(struct scan *s) {
  int fits, whole;
  long long v;
  ws(s);
  if (s->p >= s->end) return -1;
  switch (*s->p) {
    case '{': return container(s, '}');
    case '[': return container(s, ']');
    case '"': return string(s, NULL, 0, &fits);
    case 't': return literal(s, "true");
    case 'f': return literal(s, "false");
    case 'n': return literal(s, "null");
    default: return number(s, &whole, &v);
  }
}

/* The first problem with the state's members, told only once the whole state is known to be JSON. */
static char problem[128];

static void note(const char *fmt, ...) {
  if (problem[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(problem, sizeof problem, fmt, ap);
  va_end(ap);
}

static long parse_state(const char *buf, size_t len) {
  struct scan s = { (const unsigned char *)buf, (const unsigned char *)buf + len, 0 };
  long pid = -1;
  int have_id = 0, pids = 0;
  ws(&s);
  if (s.p >= s.end || *s.p != '{') fail("the state on stdin is not a JSON object");
  s.p++;
  s.depth = 1;
  ws(&s);
  if (s.p < s.end && *s.p == '}') {
    s.p++;
  } else {
    for (;;) {
      char key[16];
      int fits;
      ws(&s);
      if (string(&s, key, sizeof key, &fits) < 0) fail("the state on stdin is not valid JSON");
      ws(&s);
      if (s.p >= s.end || *s.p != ':') fail("the state on stdin is not valid JSON");
      s.p++;
      ws(&s);
      if (fits && strcmp(key, "pid") == 0) {
        int whole;
        long long v;
        if (pids++) note("the state on stdin has more than one pid");
        if (s.p < s.end && (*s.p == '-' || isdigit(*s.p))) {
          if (number(&s, &whole, &v) < 0) fail("the state on stdin is not valid JSON");
          if (!whole) note("the state's pid is not a process id");
          else if (v < 1 || v > 4194304) note("the state's pid %lld is out of range", v);
          else pid = (long)v;
        } else {
          if (value(&s) < 0) fail("the state on stdin is not valid JSON");
          note("the state's pid is not a process id");
        }
      } else if (fits && strcmp(key, "id") == 0) {
        char id[257];
        int id_fits;
        if (have_id++) note("the state on stdin has more than one id");
        if (s.p < s.end && *s.p == '"') {
          if (string(&s, id, sizeof id, &id_fits) < 0) fail("the state on stdin is not valid JSON");
          int printable = id_fits && id[0] != 0;
          for (const char *c = id; printable && *c; c++) printable = *c >= 0x20 && *c < 0x7f;
          if (!printable) note("the state's id is empty or not printable ASCII of at most 256 characters");
          else if (have_id == 1) memcpy(container_id, id, sizeof container_id);
        } else {
          if (value(&s) < 0) fail("the state on stdin is not valid JSON");
          note("the state's id is not a string");
        }
      } else if (value(&s) < 0) {
        fail("the state on stdin is not valid JSON");
      }
      ws(&s);
      if (s.p < s.end && *s.p == ',') { s.p++; continue; }
      if (s.p < s.end && *s.p == '}') { s.p++; break; }
      fail("the state on stdin is not valid JSON");
    }
  }
  ws(&s);
  if (s.p != s.end) fail("the state on stdin is not valid JSON: bytes after the object");
  if (problem[0]) fail("%s", problem);
  if (!have_id) fail("the state on stdin has no id");
  if (pid < 0) fail("the state on stdin has no pid");
  return pid;
}

/* ---- arguments ---- */

/* A kernel CPU/node list: "N" or "N-M" items, ascending, comma separated, ids below MAX_CPU_ID. */
static int valid_list(const char *v) {
  size_t len = strlen(v);
  long last = -1;
  if (len == 0 || len > MAX_LIST) return 0;
  const char *p = v;
  while (*p) {
    char *e;
    if (!isdigit((unsigned char)*p)) return 0;
    long a = strtol(p, &e, 10), b = a;
    if (e - p > 7) return 0;
    p = e;
    if (*p == '-') {
      p++;
      if (!isdigit((unsigned char)*p)) return 0;
      b = strtol(p, &e, 10);
      if (e - p > 7) return 0;
      p = e;
    }
    if (a > b || a <= last || b >= MAX_CPU_ID) return 0;
    last = b;
    if (*p == ',') { p++; if (!*p) return 0; } else if (*p) return 0;
  }
  return 1;
}

static int parse_u64(const char *p, const char *end, uint64_t *out) {
  uint64_t v = 0;
  if (p == end || end - p > 19) return 0;
  for (; p < end; p++) {
    if (!isdigit((unsigned char)*p)) return 0;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  *out = v;
  return 1;
}

struct hugetlb { uint64_t page, bytes; char name[32]; };

static void page_name(uint64_t page, char *out, size_t cap) {
  if (page >= (1ULL << 30)) snprintf(out, cap, "%lluGB", (unsigned long long)(page >> 30));
  else if (page >= (1ULL << 20)) snprintf(out, cap, "%lluMB", (unsigned long long)(page >> 20));
  else snprintf(out, cap, "%lluKB", (unsigned long long)(page >> 10));
}

/* ---- the cgroup ---- */

static int open_root(const char *root) {
  if (root[0] != '/' || strlen(root) > PATH_MAX / 2) fail("--cgroup-root must be an absolute path");
  int fd = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail("cannot open %s: %s", root, strerror(errno));
  return fd;
}

/* Walks rel ("/a/b") below dirfd one component at a time, never following a link; -errno on failure. */
static int walk(int dirfd, const char *rel) {
  char buf[PATH_MAX];
  if (strlen(rel) >= sizeof buf) return -ENAMETOOLONG;
  strcpy(buf, rel);
  int fd = dup(dirfd);
  if (fd < 0) return -errno;
  char *save = NULL;
  for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
    if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0) { close(fd); return -EINVAL; }
    int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    close(fd);
    if (next < 0) return -err;
    fd = next;
  }
  return fd;
}

/* Writes text to dir/name (no link followed); -errno on failure, -ENOENT when the file is missing. */
static int write_file(int dirfd, const char *name, const char *text) {
  int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -errno;
  size_t len = strlen(text);
  ssize_t n = write(fd, text, len);
  int err = errno;
  if (close(fd) < 0 && n >= 0) return -errno;
  if (n < 0) return -err;
  return (size_t)n == len ? 0 : -EIO;
}

/* Whether dir has an entry name (of any type: a link there is then refused by write_file, not skipped). */
static int exists(int dirfd, const char *name) {
  struct stat st;
  return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The cgroup path of pid for a v1 controller, or "" for v2 ("0::"); NULL when the file has no such line. */
static int cgroup_path(const char *procfile, const char *controller, char *out, size_t cap) {
  int fd = open(procfile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail("cannot read %s: %s", procfile, strerror(errno));
  static char buf[MAX_CGROUP_FILE + 1];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, MAX_CGROUP_FILE - len);
    if (n < 0) { if (errno == EINTR) continue; fail("cannot read %s: %s", procfile, strerror(errno)); }
    if (n == 0) break;
    len += (size_t)n;
    if (len == MAX_CGROUP_FILE) fail("%s is larger than %d bytes", procfile, MAX_CGROUP_FILE);
  }
  close(fd);
  buf[len] = 0;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *c1 = strchr(line, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2) continue;
    *c1 = 0;
    *c2 = 0;
    const char *ctrls = c1 + 1, *path = c2 + 1;
    int match = 0;
    if (controller == NULL) {
      match = strcmp(line, "0") == 0 && *ctrls == 0;
    } else {
      char list[256];
      snprintf(list, sizeof list, "%s", ctrls);
      char *s2 = NULL;
      for (char *t = strtok_r(list, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) match |= strcmp(t, controller) == 0;
    }
    if (!match) continue;
    size_t pl = strlen(path);
    if (path[0] != '/' || pl >= cap) fail("%s names cgroup path of %zu bytes, not an absolute path", procfile, pl);
    for (size_t i = 0; i < pl; i++) {
      if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f) fail("%s names a cgroup path with control characters", procfile);
    }
    if (strstr(path, "/../") || (pl >= 3 && strcmp(path + pl - 3, "/..") == 0)) fail("%s names a cgroup path with '..'", procfile);
    memcpy(out, path, pl + 1);
    return 1;
  }
  return 0;
}

/* cgroup v2: cpuset files exist only where the parent enables the controller; enable it from the root down. */
static void enable_cpuset(int rootfd, const char *rel) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", rel);
  char *last = strrchr(buf, '/');
  if (!last) return;
  *last = 0;
  char prefix[PATH_MAX] = "";
  int fd = dup(rootfd);
  if (fd < 0) fail("dup: %s", strerror(errno));
  char *save = NULL;
  char *c = strtok_r(buf, "/", &save);
  for (;;) {
    int r = write_file(fd, "cgroup.subtree_control", "+cpuset");
    if (r < 0) fail("cannot enable the cpuset controller in %s/cgroup.subtree_control: %s", prefix, strerror(-r));
    if (!c) break;
    int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) fail("cannot open cgroup %s/%s: %s", prefix, c, strerror(errno));
    close(fd);
    fd = next;
    strncat(prefix, "/", sizeof prefix - strlen(prefix) - 1);
    strncat(prefix, c, sizeof prefix - strlen(prefix) - 1);
    c = strtok_r(NULL, "/", &save);
  }
  close(fd);
}

static void set(int dirfd, const char *where, const char *file, const char *value) {
  int r = write_file(dirfd, file, value);
  if (r < 0) fail("cannot write \"%s\" to %s/%s: %s", value, where, file, strerror(-r));
}

int main(int argc, char **argv) {
  const char *cpus = NULL, *mems = NULL, *cgroot = "/sys/fs/cgroup", *procroot = "/proc";
  int version = 0;
  struct hugetlb huge[MAX_HUGETLB];
  int nhuge = 0;
  if (argc > 32) fail("too many arguments");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--cpus=", 7) == 0) {
      cpus = a + 7;
      if (!valid_list(cpus)) fail("--cpus is not a kernel CPU list: %.64s", cpus);
    } else if (strncmp(a, "--mems=", 7) == 0) {
      mems = a + 7;
      if (!valid_list(mems)) fail("--mems is not a kernel node list: %.64s", mems);
    } else if (strncmp(a, "--hugetlb=", 10) == 0) {
      const char *v = a + 10, *colon = strchr(v, ':');
      if (nhuge == MAX_HUGETLB) fail("more than %d --hugetlb limits", MAX_HUGETLB);
      struct hugetlb *h = &huge[nhuge];
      if (!colon || !parse_u64(v, colon, &h->page) || !parse_u64(colon + 1, colon + 1 + strlen(colon + 1), &h->bytes))
        fail("--hugetlb is not PAGE_BYTES:LIMIT_BYTES: %.64s", v);
      if (h->page < 4096 || (h->page & (h->page - 1)) || h->page > (1ULL << 40))
        fail("--hugetlb page size %llu is not a power of two from 4096", (unsigned long long)h->page);
      if (h->bytes > (uint64_t)INT64_MAX || h->bytes % h->page) fail("--hugetlb limit %llu is not whole pages", (unsigned long long)h->bytes);
      page_name(h->page, h->name, sizeof h->name);
      nhuge++;
    } else if (strncmp(a, "--cgroup-root=", 14) == 0) {
      cgroot = a + 14;
    } else if (strncmp(a, "--proc-root=", 12) == 0) {
      procroot = a + 12;
      if (procroot[0] != '/' || strlen(procroot) > 256) fail("--proc-root must be an absolute path");
    } else if (strncmp(a, "--cgroup-version=", 17) == 0) {
      const char *v = a + 17;
      version = strcmp(v, "1") == 0 ? 1 : strcmp(v, "2") == 0 ? 2 : strcmp(v, "auto") == 0 ? 0 : -1;
      if (version < 0) fail("--cgroup-version must be 1, 2 or auto");
    } else {
      fail("unknown argument %.64s", a);
    }
  }
  if (mems && !cpus) fail("--mems needs --cpus");

  size_t cap = 64 << 10, len = 0;
  char *state = malloc(cap);
  if (!state) fail("out of memory");
  for (;;) {
    if (len == cap) {
      if (cap > MAX_STATE) fail("the state on stdin is larger than %d bytes", MAX_STATE);
      cap = cap * 2 > (size_t)MAX_STATE + 1 ? (size_t)MAX_STATE + 1 : cap * 2;
      char *grown = realloc(state, cap);
      if (!grown) fail("out of memory for a state of %zu bytes", len);
      state = grown;
    }
    ssize_t n = read(0, state + len, cap - len);
    if (n < 0) { if (errno == EINTR) continue; fail("cannot read the state on stdin: %s", strerror(errno)); }
    if (n == 0) break;
    len += (size_t)n;
  }
  if (len > MAX_STATE) fail("the state on stdin is larger than %d bytes", MAX_STATE);
  long pid = parse_state(state, len);

  int rootfd = open_root(cgroot);
  if (version == 0) {
    struct statfs fs;
    if (fstatfs(rootfd, &fs) < 0) fail("statfs %s: %s", cgroot, strerror(errno));
    version = fs.f_type == CGROUP2_MAGIC ? 2 : 1;
  }
  char procfile[320];
  snprintf(procfile, sizeof procfile, "%s/%ld/cgroup", procroot, pid);
  char path[PATH_MAX];

  if (version == 2) {
    if (!cgroup_path(procfile, NULL, path, sizeof path)) fail("%s has no cgroup v2 line", procfile);
    int dir = walk(rootfd, path);
    if (dir < 0) fail("cannot open cgroup %s under %s: %s", path, cgroot, strerror(-dir));
    if (cpus) {
      if (!exists(dir, "cpuset.cpus")) {
        enable_cpuset(rootfd, path);
        if (!exists(dir, "cpuset.cpus")) fail("cgroup %s has no cpuset.cpus after enabling the cpuset controller", path);
      }
      set(dir, path, "cpuset.cpus", cpus);
      if (mems) set(dir, path, "cpuset.mems", mems);
    }
    for (int i = 0; i < nhuge; i++) {
      char file[64], value[32];
      snprintf(file, sizeof file, "hugetlb.%s.max", huge[i].name);
      snprintf(value, sizeof value, "%llu", (unsigned long long)huge[i].bytes);
      if (exists(dir, file)) set(dir, path, file, value);
    }
    close(dir);
  } else {
    if (cpus) {
      if (!cgroup_path(procfile, "cpuset", path, sizeof path)) fail("%s has no cpuset cgroup", procfile);
      int base = walk(rootfd, "/cpuset");
      if (base < 0) fail("cannot open %s/cpuset: %s", cgroot, strerror(-base));
      int dir = walk(base, path);
      if (dir < 0) fail("cannot open cpuset cgroup %s: %s", path, strerror(-dir));
      if (mems) set(dir, path, "cpuset.mems", mems);
      set(dir, path, "cpuset.cpus", cpus);
      close(dir);
      close(base);
    }
    if (nhuge > 0 && cgroup_path(procfile, "hugetlb", path, sizeof path)) {
      int base = walk(rootfd, "/hugetlb");
      if (base >= 0) {
        int dir = walk(base, path);
        if (dir < 0) fail("cannot open hugetlb cgroup %s: %s", path, strerror(-dir));
        for (int i = 0; i < nhuge; i++) {
          char file[64], value[32];
          snprintf(file, sizeof file, "hugetlb.%s.limit_in_bytes", huge[i].name);
          snprintf(value, sizeof value, "%llu", (unsigned long long)huge[i].bytes);
          if (exists(dir, file)) set(dir, path, file, value);
        }
        close(dir);
        close(base);
      }
    }
  }
  close(rootfd);
  return 0;
}
