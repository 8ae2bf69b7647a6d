// tex_opts.cu: the texture forms with optional parts: the sparse {d}|p
// destinations of the isResident overloads, and (inline PTX) texel
// offsets, depth compare values and tld4 on cubemaps.
__global__ void ktexopts(float4 *o, bool *r, cudaTextureObject_t t, int ox, float dc)
{
    bool a, b, c;
    o[0] = tex2D<float4>(t, 0.5f, 0.5f, &a);
    o[1] = tex2DLod<float4>(t, 0.5f, 0.5f, 1.0f, &b);
    o[2] = tex2Dgather<float4>(t, 0.5f, 0.5f, &c, 1);
    r[0] = a && b && c;
    float4 v;
    asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %5}], {%6, -2}, %7;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(t), "f"(0.5f), "r"(ox), "f"(dc));
    o[3] = v;
    asm("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %5, %5, %5}], %6;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(t), "f"(0.5f), "f"(dc));
    o[4] = v;
    asm("tex.3d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %5, %5, %5}], {%5, %5, %5, %5};"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(t), "r"(ox));
    o[5] = v;
}
