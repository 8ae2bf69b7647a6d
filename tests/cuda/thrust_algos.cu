/* thrust_algos.cu: Thrust's device algorithms through Zinc (issue #3).
 *
 * device_vector, transform, reduce, inclusive/exclusive scan, sort (int and
 * float keys, sort_by_key), unique, copy_if and count_if on about a million
 * elements (CUB's radix sort, decoupled look-back scans, reduce-by-key
 * under the hood), each against the C++ standard library on the host.
 * Built in one nvcc flavour only: Thrust takes minutes to compile.
 */
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "zn_test.h"

struct affine {
    __host__ __device__ int operator()(int x) const { return 3 * x - 7; }
};
struct is_odd {
    __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
struct below {
    float t;
    __host__ __device__ bool operator()(float x) const { return x < t; }
};

template <typename T>
static void expect_eq(const char *what, const thrust::device_vector<T> &d,
                      const std::vector<T> &want)
{
    thrust::host_vector<T> got = d;
    if (got.size() != want.size()) {
        zt_fail("%s: %zu elements, want %zu", what, (size_t)got.size(), want.size());
        return;
    }
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); i++)
        if (!(got[i] == want[i]) && bad++ < 3)
            zt_fail("%s[%zu]: got %g want %g", what, i, (double)got[i], (double)want[i]);
    if (bad > 3)
        zt_fail("%s: %zu mismatches in all", what, bad);
}

int main(void)
{
    zt_begin("thrust_algos");
    const size_t n = (size_t)1 << 20;
    std::vector<int> hi(n);
    std::vector<float> hf(n);
    for (size_t i = 0; i < n; i++) {
        hi[i] = (int)(zt_rand() % 200001) - 100000;
        hf[i] = zt_randf(-1000.0f, 1000.0f);
    }
    thrust::device_vector<int> di(hi.begin(), hi.end());
    thrust::device_vector<float> df(hf.begin(), hf.end());

    /* transform */
    thrust::device_vector<int> dt(n, -1);
    thrust::transform(di.begin(), di.end(), dt.begin(), affine());
    std::vector<int> rt(n);
    std::transform(hi.begin(), hi.end(), rt.begin(), affine());
    expect_eq("transform", dt, rt);

    /* reduce: int sum (exact) and max */
    long long sum = thrust::reduce(di.begin(), di.end(), 0LL, thrust::plus<long long>());
    long long rsum = std::accumulate(hi.begin(), hi.end(), 0LL);
    if (sum != rsum)
        zt_fail("reduce sum: got %lld want %lld", sum, rsum);
    int mx = thrust::reduce(di.begin(), di.end(), INT32_MIN, thrust::maximum<int>());
    if (mx != *std::max_element(hi.begin(), hi.end()))
        zt_fail("reduce max: got %d", mx);

    /* scans (int: exact in any order) */
    thrust::device_vector<int> ds(n, -1);
    thrust::inclusive_scan(di.begin(), di.end(), ds.begin());
    std::vector<int> rs(n);
    std::partial_sum(hi.begin(), hi.end(), rs.begin());
    expect_eq("inclusive_scan", ds, rs);
    thrust::exclusive_scan(di.begin(), di.end(), ds.begin(), 5);
    std::vector<int> re(n);
    re[0] = 5;
    for (size_t i = 1; i < n; i++)
        re[i] = re[i - 1] + hi[i - 1];
    expect_eq("exclusive_scan", ds, re);

    /* sort: int keys, float keys, by key */
    thrust::device_vector<int> dsi = di;
    thrust::sort(dsi.begin(), dsi.end());
    std::vector<int> rsi = hi;
    std::sort(rsi.begin(), rsi.end());
    expect_eq("sort int", dsi, rsi);
    thrust::device_vector<float> dsf = df;
    thrust::sort(dsf.begin(), dsf.end());
    std::vector<float> rsf = hf;
    std::sort(rsf.begin(), rsf.end());
    expect_eq("sort float", dsf, rsf);
    /* by key: keys with many duplicates, values their index (stable sort
     * semantics are not promised, so compare the key order and, per key,
     * the set of values via a (key, value) sort on the host) */
    thrust::device_vector<int> dk(n), dv(n);
    std::vector<int> hk(n), hv(n);
    for (size_t i = 0; i < n; i++) {
        hk[i] = hi[i] % 1000;
        hv[i] = (int)i;
    }
    dk = hk;
    dv = hv;
    thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
    {
        thrust::host_vector<int> gk = dk, gv = dv;
        std::vector<std::pair<int, int>> got(n), want(n);
        for (size_t i = 0; i < n; i++) {
            got[i] = {gk[i], gv[i]};
            want[i] = {hk[i], hv[i]};
        }
        std::sort(want.begin(), want.end());
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            if (got[i].first != want[i].first)
                bad++;
            else if (hk[got[i].second] != got[i].first)
                bad++;  /* value moved with another key */
        }
        std::sort(got.begin(), got.end());
        if (got != want)
            bad++;
        if (bad)
            zt_fail("sort_by_key: %zu bad pairs", bad);
    }

    /* unique on sorted int keys */
    thrust::device_vector<int> du = dsi;
    size_t nu = thrust::unique(du.begin(), du.end()) - du.begin();
    std::vector<int> ru = rsi;
    ru.erase(std::unique(ru.begin(), ru.end()), ru.end());
    du.resize(nu);
    expect_eq("unique", du, ru);

    /* copy_if, count_if */
    thrust::device_vector<int> dc(n, -1);
    size_t nc = thrust::copy_if(di.begin(), di.end(), dc.begin(), is_odd()) - dc.begin();
    std::vector<int> rc;
    std::copy_if(hi.begin(), hi.end(), std::back_inserter(rc), is_odd());
    dc.resize(nc);
    expect_eq("copy_if", dc, rc);
    long cnt = (long)thrust::count_if(df.begin(), df.end(), below{100.0f});
    long rcnt = (long)std::count_if(hf.begin(), hf.end(), below{100.0f});
    if (cnt != rcnt)
        zt_fail("count_if: got %ld want %ld", cnt, rcnt);

    CK(cudaDeviceSynchronize());
    printf("thrust: %zu elements, %zu unique, %zu odd\n", n, nu, nc);
    return zt_finish();
}
