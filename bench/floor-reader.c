/*
 * The floor for in-process discovery (issue 14, rows 3 and 4): reads exactly the files and lists
 * exactly the directories that one discovery run opened (recorded by bench/inprocess.sh from the same
 * run's strace), with nothing else: open, read to EOF into one reused buffer, close; a directory is
 * opendir + readdir to the end + closedir. One warm-up round, then ROUNDS rounds; prints the median
 * round's wall time and CPU time in microseconds and the number of paths: "<wall> <paths> <sink> <cpu>".
 *   floor-reader LIST ROUNDS   (LIST: one "F <path>" or "D <path>" per line)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static long clock_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIST ROUNDS\n", argv[0]);
    return 2;
  }
  FILE *list = fopen(argv[1], "r");
  if (!list) {
    perror(argv[1]);
    return 1;
  }
  size_t cap = 1024, n = 0;
  char **paths = malloc(cap * sizeof *paths);
  char *kinds = malloc(cap);
  char *line = NULL;
  size_t len = 0;
  ssize_t got;
  while ((got = getline(&line, &len, list)) > 2) {
    if (line[got - 1] == '\n') line[--got] = 0;
    if (n == cap) {
      cap *= 2;
      paths = realloc(paths, cap * sizeof *paths);
      kinds = realloc(kinds, cap);
    }
    kinds[n] = line[0];
    paths[n++] = strdup(line + 2);
  }
  fclose(list);
  int rounds = atoi(argv[2]);
  long *took = malloc((rounds + 1) * sizeof *took);
  long *cpu = malloc((rounds + 1) * sizeof *cpu);
  static char buf[1 << 16];
  long sink = 0;
  for (int r = 0; r <= rounds; r++) {
    long start = clock_ns(CLOCK_MONOTONIC);
    long cpu_start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t i = 0; i < n; i++) {
      if (kinds[i] == 'D') {
        DIR *d = opendir(paths[i]);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) sink += e->d_name[0];
        closedir(d);
      } else {
        int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t k;
        while ((k = read(fd, buf, sizeof buf)) > 0) sink += buf[0];
        close(fd);
      }
    }
    took[r] = clock_ns(CLOCK_MONOTONIC) - start;
    cpu[r] = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  }
  qsort(took + 1, rounds, sizeof *took, cmp);
  qsort(cpu + 1, rounds, sizeof *cpu, cmp);
  printf("%.1f %zu %ld %.1f\n", took[1 + rounds / 2] / 1000.0, n, sink & 1, cpu[1 + rounds / 2] / 1000.0);
  return 0;
}
