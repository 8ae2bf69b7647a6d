// warp_transpose: CUB's BlockLoad and BlockStore with the warp-transpose
// and block-transpose algorithms, which pass a thread's K items through
// shared memory at sh[lane * K + i]: runs of K shared loads and stores
// that Zinc turns into per-lane 16-byte records (src/compile/
// zn_lower_record.c); and the direct algorithms, whose thread-blocked
// global loads and stores are such runs in global memory. Each tile is loaded blocked, every item changed by
// its position, and stored back striped through the same transposes; a
// partial last tile loads with a default and stores only its valid items.
// 32-bit items (K = 15 as CUB's scan, 7, 4) and 64-bit ones (K = 7, 3;
// long long and double). The output is poisoned; every element is checked
// against a CPU reference.
#include "zn_test.h"
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

#define NT 128

template <typename T, int K, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm SA>
__global__ void tiles(const T *in, T *out, int n)
{
    using Load = cub::BlockLoad<T, NT, K, LA>;
    using Store = cub::BlockStore<T, NT, K, SA>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
    } tmp;
    const int base = blockIdx.x * NT * K, valid = n - base < NT * K ? n - base : NT * K;
    T v[K];
    if (valid == NT * K)
        Load(tmp.load).Load(in + base, v);
    else
        Load(tmp.load).Load(in + base, v, valid, T(-1));
    __syncthreads();
    for (int i = 0; i < K; i++)   // blocked: item i of thread t is element t * K + i
        v[i] = v[i] * T(3) + T(threadIdx.x * K + i);
    if (valid == NT * K)
        Store(tmp.store).Store(out + base, v);
    else
        Store(tmp.store).Store(out + base, v, valid);
}

template <typename T> static T value(int i);
template <> int value<int>(int i) { return (int)(zt_rand() % 200001) - 100000 + i % 3; }
template <> long long value<long long>(int i) { return (long long)zt_rand64() >> 8 ^ i; }
template <> double value<double>(int i)
{
    return (double)((int)(zt_rand() % 4001) - 2000) / 8 + i % 5;
}

template <typename T, int K, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm SA>
static void run(const char *name)
{
    const int tiles_n = 5, n = tiles_n * NT * K - 77;   // a partial last tile
    T *in = (T *)malloc(n * sizeof(T)), *out = (T *)malloc(n * sizeof(T)), *din, *dout;
    for (int i = 0; i < n; i++)
        in[i] = value<T>(i);
    CK(cudaMalloc(&din, n * sizeof(T)));
    CK(cudaMalloc(&dout, n * sizeof(T)));
    CK(cudaMemcpy(din, in, n * sizeof(T), cudaMemcpyHostToDevice));
    POISON(dout, n * sizeof(T));
    tiles<T, K, LA, SA><<<tiles_n, NT>>>(din, dout, n);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, n * sizeof(T), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n && bad < 5; i++) {
        T want = in[i] * T(3) + T(i % (NT * K));
        if (memcmp(&out[i], &want, sizeof(T)) != 0) {
            zt_fail("%s: element %d (tile %d, thread %d, item %d) wrong", name, i, i / (NT * K),
                    i % (NT * K) / K, i % K);
            bad++;
        }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(in);
    free(out);
}

int main()
{
    zt_begin("warp_transpose");
    run<int, 15, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>("int x15 warp");
    run<int, 7, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>("int x7 warp");
    run<int, 4, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("int x4 block");
    run<int, 15, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("int x15 block");
    run<long long, 7, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(
        "i64 x7 warp");
    run<long long, 3, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("i64 x3 block");
    run<double, 5, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>("f64 x5 warp");
    // thread-blocked global accesses in place: the runs are ld/st.global
    run<int, 7, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>("int x7 direct");
    run<int, 4, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>("int x4 direct");
    run<long long, 3, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>("i64 x3 direct");
    return zt_finish();
}
