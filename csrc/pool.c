/* The threads a batched call's work is split over (declared in batch.h): each thread
 * owns a contiguous slice of the games, the calling thread the first.
 *
 * On POSIX the other threads are a pool started on first use and kept, as EnvPool keeps
 * its workers: between calls they wait on a condition variable, so a call costs a wake-up
 * instead of thread starts. One call uses the pool at a time; a call made while another
 * holds it (two batches stepped from two Python threads) starts its own threads, as on
 * Windows. A forked child starts with no workers (pthread_atfork). None of these threads
 * touches Python objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <time.h>

#include "batch.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#endif

typedef struct {
    slice_fn fn;
    void *ctx;
    Py_ssize_t start, stop;
} slice_job;

#ifdef _WIN32
static DWORD WINAPI run_slice(LPVOID arg) {
    slice_job *j = (slice_job *)arg;
    j->fn(j->ctx, j->start, j->stop);
    return 0;
}
#else
static void *run_slice(void *arg) {
    slice_job *j = (slice_job *)arg;
    j->fn(j->ctx, j->start, j->stop);
    return NULL;
}
#endif

/* jobs[1..threads) on threads started for this call (one that cannot be started leaves
 * its slice to the calling thread), jobs[0] on the calling thread */
static void run_on_new_threads(int threads, slice_job *jobs) {
    int started[WK_MAX_THREADS] = {0};
#ifdef _WIN32
    HANDLE handles[WK_MAX_THREADS];
#else
    pthread_t handles[WK_MAX_THREADS];
#endif
    for (int t = 1; t < threads; t++) {
#ifdef _WIN32
        handles[t] = CreateThread(NULL, 0, run_slice, &jobs[t], 0, NULL);
        started[t] = handles[t] != NULL;
#else
        started[t] = pthread_create(&handles[t], NULL, run_slice, &jobs[t]) == 0;
#endif
    }
    jobs[0].fn(jobs[0].ctx, jobs[0].start, jobs[0].stop);
    for (int t = 1; t < threads; t++) {
        if (!started[t]) {
            jobs[t].fn(jobs[t].ctx, jobs[t].start, jobs[t].stop);
            continue;
        }
#ifdef _WIN32
        WaitForSingleObject(handles[t], INFINITE);
        CloseHandle(handles[t]);
#else
        pthread_join(handles[t], NULL);
#endif
    }
}

#ifndef _WIN32
/* Spin up to SPIN_NS while (*x == value) == same, without sleeping: a wake-up through a
 * condition variable costs tens of microseconds on a virtual machine, while a vector
 * env's steps come a fraction of a millisecond apart. So the workers wait for the next
 * call by spinning up to two milliseconds before they sleep (Intel's OpenMP runtime waits
 * a hundred times as long by default, KMP_BLOCKTIME), and the calling thread waits as
 * long for their slices. */
#define SPIN_NS 2000000
#if defined(__GNUC__) || defined(__clang__)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
static void spin_while(unsigned long *x, unsigned long value, int same) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; (__atomic_load_n(x, __ATOMIC_ACQUIRE) == value) == same; k++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (k % 64 == 63) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > SPIN_NS) return;
        }
    }
}
#else
#define STORE(x, v) ((x) = (v))
static void spin_while(unsigned long *x, unsigned long value, int same) {
    (void)x;
    (void)value;
    (void)same;
}
#endif

static pthread_mutex_t pool_owner = PTHREAD_MUTEX_INITIALIZER;  /* held by the call using it */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;     /* guards what follows */
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER, pool_done = PTHREAD_COND_INITIALIZER;
static slice_job pool_jobs[WK_MAX_THREADS];
static int pool_workers, pool_active, pool_atfork;
/* written under pool_mu, read without it by the spinning threads */
static unsigned long pool_round, pool_left;

static void *pool_worker(void *arg) {
    int id = (int)(intptr_t)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool_mu);
    for (;;) {
        while (pool_round == seen) pthread_cond_wait(&pool_wake, &pool_mu);
        seen = pool_round;
        if (id >= pool_active) continue;
        slice_job job = pool_jobs[id];
        pthread_mutex_unlock(&pool_mu);
        job.fn(job.ctx, job.start, job.stop);
        pthread_mutex_lock(&pool_mu);
        STORE(pool_left, pool_left - 1);
        if (pool_left == 0) pthread_cond_signal(&pool_done);
        pthread_mutex_unlock(&pool_mu);
        spin_while(&pool_round, seen, 1);  /* a call's next round often follows at once */
        pthread_mutex_lock(&pool_mu);
    }
    return NULL;
}

/* in a forked child: the workers stayed in the parent */
static void pool_forget(void) {
    pthread_mutex_init(&pool_owner, NULL);
    pthread_mutex_init(&pool_mu, NULL);
    pthread_cond_init(&pool_wake, NULL);
    pthread_cond_init(&pool_done, NULL);
    pool_workers = pool_active = 0;
    pool_left = pool_round = 0;
}

/* 1 when jobs[0..threads) ran on the pool, 0 when it is busy (nothing ran) */
static int run_on_pool(int threads, slice_job *jobs) {
    if (pthread_mutex_trylock(&pool_owner) != 0) return 0;
    if (!pool_atfork) pool_atfork = pthread_atfork(NULL, NULL, pool_forget) == 0 ? 1 : -1;
    while (pool_atfork == 1 && pool_workers < threads - 1) {
        pthread_t th;
        if (pthread_create(&th, NULL, pool_worker, (void *)(intptr_t)(pool_workers + 1)) != 0)
            break;
        pthread_detach(th);
        pool_workers++;
    }
    int use = pool_workers + 1 < threads ? pool_workers + 1 : threads;
    pthread_mutex_lock(&pool_mu);
    for (int t = 1; t < use; t++) pool_jobs[t] = jobs[t];
    pool_active = use;
    STORE(pool_left, (unsigned long)(use - 1));
    STORE(pool_round, pool_round + 1);
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_mu);
    jobs[0].fn(jobs[0].ctx, jobs[0].start, jobs[0].stop);
    for (int t = use; t < threads; t++)  /* slices of workers that could not be started */
        jobs[t].fn(jobs[t].ctx, jobs[t].start, jobs[t].stop);
    spin_while(&pool_left, 0, 0);  /* the workers' slices take about as long as this one */
    pthread_mutex_lock(&pool_mu);
    while (pool_left > 0) pthread_cond_wait(&pool_done, &pool_mu);
    pthread_mutex_unlock(&pool_mu);
    pthread_mutex_unlock(&pool_owner);
    return 1;
}
#endif

/* fn over [0, k) in `threads` contiguous slices, the calling thread taking the first */
void wk_parallel_for(int threads, Py_ssize_t k, slice_fn fn, void *ctx) {
    if (threads > k / 64) threads = (int)(k / 64);  /* small batches: not worth a thread */
    if (threads < 1) threads = 1;
    if (threads > WK_MAX_THREADS) threads = WK_MAX_THREADS;
    if (threads == 1) {
        fn(ctx, 0, k);
        return;
    }
    slice_job jobs[WK_MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        jobs[t].fn = fn;
        jobs[t].ctx = ctx;
        jobs[t].start = k * t / threads;
        jobs[t].stop = k * (t + 1) / threads;
    }
#ifndef _WIN32
    if (run_on_pool(threads, jobs)) return;
#endif
    run_on_new_threads(threads, jobs);
}
