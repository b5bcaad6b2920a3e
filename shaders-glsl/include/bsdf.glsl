// The glTF 2.0 metallic-roughness BSDF with KHR_materials_specular, _ior, _transmission and
// _clearcoat:
//   coat + (1 - c F_coat(wo)) (1 - c F_coat(wi)) x base,
//   base = metallic x metal + (1 - metallic) x [transmission x glass + (1 - transmission) x plastic]
// metal: GGX reflection with Schlick's Fresnel from baseColor (conductor_fresnel); smooth, a
// perfect mirror that reflects baseColor at every angle (metal_fresnel);
// plastic: fresnel_mix of a GGX reflection layer over a Lambertian base (the specification's
// dielectric_brdf, Schlick's Fresnel from the ior, specular colour and factor);
// glass: a rough dielectric (Walter et al. 2007) whose transmission is tinted by baseColor;
// coat: a GGX reflection of weight c (clearcoatFactor), Fresnel from ior 1.5, with an alpha and
// a normal of its own. glTF's informative layering weighs the base by 1 - c F_coat(wo) alone;
// here the base is weighed on the way in and out, so that f stays reciprocal (bidirectional
// methods trace it both ways).
// GGX everywhere has height-correlated Smith masking-shadowing and is sampled by its visible
// normals (Heitz 2018). The glass uses the exact dielectric Fresnel instead of Schlick's (the
// specification's formulas are informative), so that it has total internal reflection and
// its smooth limit is the reference conventions' smooth dielectric.
//
// Everything works in a local frame whose z is the shading normal turned towards `wo`, the
// direction back along the incoming ray. A lobe with alpha below DELTA_ALPHA is a perfect
// reflection or refraction: evaluation leaves it out and sampling reports it as delta (no
// density for MIS). `entering` says wo is outside the medium (the front side). Evaluations
// return f x |cos theta_i|; sampling returns that over the density. Refraction carries the
// 1 / eta^2 of radiance transport.
//
// The CPU twin is src/bsdf/mod.rs; tests/bsdf.rs holds the two together and checks the math.
#ifndef WAVETRACE_BSDF_GLSL
#define WAVETRACE_BSDF_GLSL

#include "common.glsl"
#include "features.glsl"

const float PI = 3.14159265358979;

struct Bsdf {
    vec3 base_color;
    float metallic;
    // KHR_materials_specular's colour and factor.
    vec3 specular_color;
    float specular;
    // GGX alpha: roughness squared.
    float alpha;
    float transmission;
    float ior;
    // KHR_materials_clearcoat: the coat's weight (0: none), its GGX alpha, and its normal in
    // the local frame (the interpolated normal, which the base's normal map does not tilt).
    float clearcoat;
    float coat_alpha;
    vec3 coat_normal;
};

struct BsdfSample {
    vec3 wi;
    // f x |cos theta_i| / pdf.
    vec3 weight;
    // Solid-angle density of the whole BSDF's sampling at wi; 0 for a delta lobe.
    float pdf;
    bool transmitted;
    bool delta;
};

float max3(vec3 v) {
    return max(v.x, max(v.y, v.z));
}

float luminance_of(vec3 rgb) {
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

// An orthonormal basis around n (Duff et al. 2017, "Building an Orthonormal Basis, Revisited").
void basis(vec3 n, out vec3 t, out vec3 b) {
    float s = n.z >= 0.0 ? 1.0 : -1.0;
    float a = -1.0 / (s + n.z);
    float c = n.x * n.y * a;
    t = vec3(1.0 + s * n.x * n.x * a, s * c, -s * n.x);
    b = vec3(c, s + n.y * n.y * a, -n.y);
}

vec3 to_local(vec3 v, vec3 t, vec3 b, vec3 n) {
    return vec3(dot(v, t), dot(v, b), dot(v, n));
}

vec3 from_local(vec3 v, vec3 t, vec3 b, vec3 n) {
    return t * v.x + b * v.y + n * v.z;
}

vec3 sample_cosine_local(vec2 u) {
    float r = sqrt(u.x);
    float phi = 2.0 * PI * u.y;
    return vec3(r * cos(phi), r * sin(phi), sqrt(max(0.0, 1.0 - u.x)));
}

// Unpolarised Fresnel reflectance of a smooth dielectric; eta = n_incident / n_transmitted.
float fresnel_dielectric(float cos_i, float eta) {
    float sin2_t = eta * eta * max(0.0, 1.0 - cos_i * cos_i);
    if (sin2_t >= 1.0) {
        return 1.0;
    }
    float cos_t = sqrt(1.0 - sin2_t);
    float rs = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    float rp = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    return 0.5 * (rs * rs + rp * rp);
}

vec3 fresnel_schlick(vec3 f0, float cos_theta) {
    float m = clamp(1.0 - cos_theta, 0.0, 1.0);
    float m2 = m * m;
    return f0 + (vec3(1.0) - f0) * (m2 * m2 * m);
}

float ggx_d(vec3 h, float alpha) {
    float a2 = alpha * alpha;
    float d = h.z * h.z * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

float ggx_lambda(vec3 w, float alpha) {
    float c2 = w.z * w.z;
    float tan2 = max(0.0, 1.0 - c2) / max(c2, 1e-12);
    return 0.5 * (sqrt(1.0 + alpha * alpha * tan2) - 1.0);
}

float ggx_g1(vec3 w, float alpha) {
    return 1.0 / (1.0 + ggx_lambda(w, alpha));
}

float ggx_g2(vec3 wo, vec3 wi, float alpha) {
    return 1.0 / (1.0 + ggx_lambda(wo, alpha) + ggx_lambda(wi, alpha));
}

// A microfacet normal seen from wo (wo.z > 0), distributed as D_wo(h) = G1(wo) max(0, wo.h)
// D(h) / wo.z (Heitz 2018, "Sampling the GGX Distribution of Visible Normals").
vec3 ggx_sample_visible(vec3 wo, float alpha, vec2 u) {
    vec3 vh = normalize(vec3(alpha * wo.x, alpha * wo.y, wo.z));
    float lensq = vh.x * vh.x + vh.y * vh.y;
    vec3 t1 = lensq > 0.0 ? vec3(-vh.y, vh.x, 0.0) * inversesqrt(lensq) : vec3(1.0, 0.0, 0.0);
    vec3 t2 = cross(vh, t1);
    float r = sqrt(u.x);
    float phi = 2.0 * PI * u.y;
    float p1 = r * cos(phi);
    float p2 = r * sin(phi);
    float s = 0.5 * (1.0 + vh.z);
    p2 = (1.0 - s) * sqrt(max(0.0, 1.0 - p1 * p1)) + s * p2;
    vec3 nh = p1 * t1 + p2 * t2 + sqrt(max(0.0, 1.0 - p1 * p1 - p2 * p2)) * vh;
    return normalize(vec3(alpha * nh.x, alpha * nh.y, max(1e-7, nh.z)));
}

// The density of ggx_sample_visible's h, without the max(0, wo.h) (callers check the sign).
float ggx_visible_density(vec3 wo, vec3 h, float alpha) {
    return ggx_g1(wo, alpha) * abs(dot(wo, h)) * ggx_d(h, alpha) / wo.z;
}

// KHR_materials_specular's dielectric f0: from the ior, tinted, at most 1.
vec3 dielectric_f0(Bsdf b) {
    float r = (b.ior - 1.0) / (b.ior + 1.0);
    return min(vec3(r * r) * b.specular_color, vec3(1.0));
}

// The glass reflection's tint: the specular colour, as far as f0 allows it.
vec3 glass_tint(Bsdf b) {
    float r = (b.ior - 1.0) / (b.ior + 1.0);
    return min(b.specular_color, vec3(1.0 / max(r * r, 1e-6)));
}

bool bsdf_is_smooth(Bsdf b) {
    return b.alpha < DELTA_ALPHA;
}

// The metal lobe's Fresnel: Schlick's from baseColor, as glTF's conductor_fresnel, where the
// lobe is rough. A smooth metal is the reference conventions' perfect mirror (REFERENCE.md,
// Mitsuba's conductor without a material), whose reflectance is baseColor at every angle:
// with Schlick's rise toward grazing, a coloured mirror seen at a glancing angle was 15-24%
// brighter than Mitsuba's (docs/BENCHMARKS.md).
vec3 metal_fresnel(Bsdf b, float cos_theta) {
    return bsdf_is_smooth(b) ? b.base_color : fresnel_schlick(b.base_color, cos_theta);
}

// Whether any lobe has a density to evaluate (else next-event estimation cannot help).
bool bsdf_has_density(Bsdf b) {
    bool opaque = b.metallic < 1.0 && b.transmission < 1.0;
    bool rough_coat = HAS_CLEARCOAT && b.clearcoat > 0.0 && b.coat_alpha >= DELTA_ALPHA;
    return !bsdf_is_smooth(b) || (opaque && max3(b.base_color) > 0.0) || rough_coat;
}

// An estimate of what each lobe of the base (metal, plastic's specular layer, plastic's
// diffuse base, glass) reflects from wo.
vec4 lobe_weights(Bsdf b, float cos_o) {
    float dielectric = 1.0 - b.metallic;
    float opaque = dielectric * (1.0 - b.transmission);
    float layer = HAS_SPECULAR_LAYER ? b.specular * max3(fresnel_schlick(dielectric_f0(b), cos_o)) : 0.0;
    vec4 w = vec4(HAS_METAL ? b.metallic * luminance_of(metal_fresnel(b, cos_o)) : 0.0, opaque * layer,
                  opaque * (1.0 - layer) * luminance_of(b.base_color), dielectric * b.transmission);
    // A lobe that is there but reflects almost nothing keeps a small chance: its f is not
    // exactly 0 at every angle, so its density must not be either.
    return max(w, vec4(b.metallic, opaque * b.specular, opaque * max3(b.base_color), 0.0) * 1e-3);
}

// Chance of sampling each lobe of the base from wo, in proportion to lobe_weights.
vec4 lobe_probabilities(Bsdf b, float cos_o) {
    vec4 w = lobe_weights(b, cos_o);
    float total = w.x + w.y + w.z + w.w;
    return total > 0.0 ? w / total : vec4(0.0);
}

// The relative index wi meets when it refracts from wo's side to the other.
float refraction_eta(Bsdf b, bool entering) {
    return entering ? b.ior : 1.0 / b.ior;
}

vec3 bsdf_eval(Bsdf b, vec3 wo, vec3 wi, bool entering, out float pdf);

// A sample of a lobe with a density gets the whole BSDF's density and f / density at its
// direction; false where the density is 0.
bool weigh_sample(Bsdf b, vec3 wo, bool entering, inout BsdfSample s) {
    vec3 f = bsdf_eval(b, wo, s.wi, entering, s.pdf);
    if (!(s.pdf > 0.0)) {
        return false;
    }
    s.weight = f / s.pdf;
    return true;
}

// f x |cos theta_i| of every non-delta lobe of the base, and the density with which
// base_sample picks wi, given the lobes' probabilities p from wo (lobe_probabilities).
vec3 base_eval(Bsdf b, vec4 p, vec3 wo, vec3 wi, bool entering, out float pdf) {
    pdf = 0.0;
    if (wo.z <= 0.0 || wi.z == 0.0) {
        return vec3(0.0);
    }
    bool smooth_lobes = bsdf_is_smooth(b);
    float dielectric = 1.0 - b.metallic;
    float opaque = dielectric * (1.0 - b.transmission);
    // Without a metal, a specular layer or glass the microfacet terms below add exactly zero
    // to f and to the density: skipped, a diffuse surface's evaluation costs a fraction.
    bool glossy = HAS_GLOSSY_LOBES && !smooth_lobes
                  && (b.metallic > 0.0 || opaque * b.specular > 0.0 || dielectric * b.transmission > 0.0);
    if (wi.z > 0.0) {
        vec3 h = normalize(wo + wi);
        float cos_h = max(dot(wo, h), 0.0);
        vec3 layer = HAS_SPECULAR_LAYER ? b.specular * fresnel_schlick(dielectric_f0(b), cos_h) : vec3(0.0);
        vec3 f = opaque * (1.0 - max3(layer)) * b.base_color * (wi.z / PI);
        pdf = p.z * wi.z / PI;
        if (glossy) {
            float microfacet = ggx_d(h, b.alpha) * ggx_g2(wo, wi, b.alpha) / (4.0 * wo.z);
            float reflected = dot(wo, h) > 0.0 ? ggx_g1(wo, b.alpha) * ggx_d(h, b.alpha) / (4.0 * wo.z) : 0.0;
            float glass_fresnel =
                HAS_TRANSMISSION ? b.specular * fresnel_dielectric(cos_h, 1.0 / refraction_eta(b, entering)) : 0.0;
            f += microfacet * ((HAS_METAL ? b.metallic * metal_fresnel(b, cos_h) : vec3(0.0))
                               + opaque * layer + dielectric * b.transmission * glass_fresnel * glass_tint(b));
            pdf += reflected * (p.x + p.y + p.w * glass_fresnel);
        }
        return f;
    }
    if (!HAS_TRANSMISSION || smooth_lobes || b.transmission <= 0.0 || dielectric <= 0.0) {
        return vec3(0.0);
    }
    float eta = refraction_eta(b, entering);
    vec3 h = normalize(wo + wi * eta);
    if (h.z < 0.0) {
        h = -h;
    }
    float cos_o = dot(wo, h);
    float cos_i = dot(wi, h);
    if (cos_o <= 0.0 || cos_i >= 0.0) {
        return vec3(0.0);
    }
    float fresnel = fresnel_dielectric(cos_o, 1.0 / eta);
    // Past the critical angle nothing refracts, whatever KHR_materials_specular leaves over.
    float transmitted = fresnel < 1.0 ? 1.0 - b.specular * fresnel : 0.0;
    float denominator = cos_i + cos_o / eta;
    denominator *= denominator;
    float jacobian = abs(cos_i) / denominator;
    float d = ggx_d(h, b.alpha);
    pdf = p.w * transmitted * ggx_g1(wo, b.alpha) * d * cos_o / wo.z * jacobian;
    float f = d * ggx_g2(wo, wi, b.alpha) * transmitted * cos_o * jacobian / wo.z / (eta * eta);
    return dielectric * b.transmission * b.base_color * f;
}

// Samples wi from the base's lobes, as bsdf_sample does (whose weight and density, where wi
// is not a delta lobe's, are the whole BSDF's).
bool base_sample(Bsdf b, vec3 wo, bool entering, vec3 u, out BsdfSample s) {
    s = BsdfSample(vec3(0.0, 0.0, 1.0), vec3(0.0), 0.0, false, false);
    if (wo.z <= 0.0) {
        return false;
    }
    vec4 p = lobe_probabilities(b, wo.z);
    if (p == vec4(0.0)) {
        return false;
    }
    bool smooth_lobes = bsdf_is_smooth(b);
    float dielectric = 1.0 - b.metallic;
    // u.z picks the lobe from the cumulative probabilities; where rounding leaves their sum
    // a little under 1, u.z above it goes to a lobe that can be chosen, never one of
    // probability 0 (which a kernel specialised without that lobe does not have).
    bool only_base = p.x + p.y + p.w <= 0.0;
    if (!HAS_GLOSSY_LOBES || only_base || u.z < p.z) {
        s.wi = sample_cosine_local(u.xy);
    } else {
        vec3 h = smooth_lobes ? vec3(0.0, 0.0, 1.0) : ggx_sample_visible(wo, b.alpha, u.xy);
        float cos_h = dot(wo, h);
        if (cos_h <= 0.0) {
            return false;
        }
        vec3 reflected = reflect(-wo, h);
        float glass_start = p.z + p.x + p.y;
        if (HAS_TRANSMISSION && p.w > 0.0 && u.z >= glass_start) {
            float eta = refraction_eta(b, entering);
            float reflectance = b.specular * fresnel_dielectric(cos_h, 1.0 / eta);
            float v = (u.z - glass_start) / p.w;
            if (v < reflectance) {
                s.wi = reflected;
                if (smooth_lobes) {
                    s.weight = dielectric * b.transmission * glass_tint(b) / p.w;
                }
            } else {
                s.wi = refract(-wo, h, 1.0 / eta);
                s.transmitted = true;
                if (s.wi == vec3(0.0)) {
                    return false;
                }
                if (smooth_lobes) {
                    s.weight = dielectric * b.transmission * b.base_color / (p.w * eta * eta);
                }
            }
        } else {
            s.wi = reflected;
            if (smooth_lobes) {
                vec3 value = u.z < p.z + p.x || p.y <= 0.0
                                 ? b.metallic * metal_fresnel(b, cos_h) / p.x
                                 : dielectric * (1.0 - b.transmission) * b.specular
                                       * fresnel_schlick(dielectric_f0(b), cos_h) / p.y;
                s.weight = value;
            }
        }
        if (smooth_lobes) {
            s.delta = true;
            return s.transmitted ? s.wi.z < 0.0 : s.wi.z > 0.0;
        }
    }
    if (s.transmitted ? s.wi.z >= 0.0 : s.wi.z <= 0.0) {
        return false;
    }
    return weigh_sample(b, wo, entering, s);
}

bool has_coat(Bsdf b) {
    return HAS_CLEARCOAT && b.clearcoat > 0.0;
}

// The coat's Fresnel reflectance along w: glTF's fresnel_coat, Schlick's from ior 1.5
// (CLEARCOAT_F0) at the angle to the coat's normal.
float coat_fresnel(Bsdf b, vec3 w) {
    return fresnel_schlick(vec3(CLEARCOAT_F0), abs(dot(w, b.coat_normal))).x;
}

// What of a surface's emission a coat of weight `clearcoat` lets out at cos_out to the normal:
// KHR_materials_clearcoat darkens emission by the coat's Fresnel term. Emission is weighed by
// the geometric normal's cosine everywhere (hits, light samples, emission samples), so the
// coat's angle is taken to it too, and every strategy sees the same emitter.
float coat_over_emission(float clearcoat, float cos_out) {
    if (!HAS_CLEARCOAT || !(clearcoat > 0.0)) {
        return 1.0;
    }
    return 1.0 - clearcoat * fresnel_schlick(vec3(CLEARCOAT_F0), abs(cos_out)).x;
}

// What of the base the coat lets through, on the way in and on the way out.
float coat_transmittance(Bsdf b, vec3 wo, vec3 wi) {
    return (1.0 - b.clearcoat * coat_fresnel(b, wo)) * (1.0 - b.clearcoat * coat_fresnel(b, wi));
}

// The chance of sampling the coat, which reflects `coat` of the light from wo, against the base
// beneath, whose lobes' weights from wo sum to `base` (lobe_weights).
float coat_share(float coat, float base) {
    float total = coat + (1.0 - coat) * base;
    return total > 0.0 ? coat / total : 0.0;
}

float coat_probability(Bsdf b, vec3 wo) {
    vec4 w = lobe_weights(b, wo.z);
    return coat_share(b.clearcoat * coat_fresnel(b, wo), w.x + w.y + w.z + w.w);
}

// wo and wi in the coat's frame, whose z is the coat's normal.
void coat_frame(Bsdf b, vec3 wo, vec3 wi, out vec3 o, out vec3 i) {
    vec3 t;
    vec3 bitangent;
    basis(b.coat_normal, t, bitangent);
    o = to_local(wo, t, bitangent, b.coat_normal);
    i = to_local(wi, t, bitangent, b.coat_normal);
}

// The rough coat's f x |cos theta_i| (the cosine to the shading normal, as for every lobe) and
// the density of coat_sample's directions; Fresnel at the microfacet, so that f is reciprocal.
vec3 coat_eval(Bsdf b, vec3 wo, vec3 wi, out float pdf) {
    pdf = 0.0;
    vec3 o;
    vec3 i;
    coat_frame(b, wo, wi, o, i);
    if (o.z <= 0.0 || i.z <= 0.0 || b.coat_alpha < DELTA_ALPHA) {
        return vec3(0.0);
    }
    vec3 h = normalize(o + i);
    float d = ggx_d(h, b.coat_alpha);
    float fresnel = fresnel_schlick(vec3(CLEARCOAT_F0), dot(o, h)).x;
    pdf = ggx_g1(o, b.coat_alpha) * d / (4.0 * o.z);
    return vec3(b.clearcoat * fresnel * d * ggx_g2(o, i, b.coat_alpha) / (4.0 * o.z * i.z) * abs(wi.z));
}

// f x |cos theta_i| of every non-delta lobe, and the density with which bsdf_sample picks wi.
vec3 bsdf_eval(Bsdf b, vec3 wo, vec3 wi, bool entering, out float pdf) {
    // The lobes' weights once, for the base's probabilities and the coat's.
    vec4 w = lobe_weights(b, wo.z);
    float base = w.x + w.y + w.z + w.w;
    vec3 f = base_eval(b, base > 0.0 ? w / base : vec4(0.0), wo, wi, entering, pdf);
    if (!has_coat(b) || wo.z <= 0.0) {
        return f;
    }
    float coat_o = b.clearcoat * coat_fresnel(b, wo);
    float p_coat = coat_share(coat_o, base);
    float coat_pdf;
    vec3 coat = coat_eval(b, wo, wi, coat_pdf);
    pdf = p_coat * coat_pdf + (1.0 - p_coat) * pdf;
    return coat + (1.0 - coat_o) * (1.0 - b.clearcoat * coat_fresnel(b, wi)) * f;
}

// A reflection off the coat, chosen with probability p_coat.
bool coat_sample(Bsdf b, vec3 wo, bool entering, vec2 u, float p_coat, out BsdfSample s) {
    s = BsdfSample(vec3(0.0, 0.0, 1.0), vec3(0.0), 0.0, false, false);
    vec3 o;
    vec3 unused;
    coat_frame(b, wo, wo, o, unused);
    if (o.z <= 0.0) {
        return false;
    }
    bool smooth_coat = b.coat_alpha < DELTA_ALPHA;
    vec3 h = smooth_coat ? vec3(0.0, 0.0, 1.0) : ggx_sample_visible(o, b.coat_alpha, u);
    vec3 i = reflect(-o, h);
    vec3 t;
    vec3 bitangent;
    basis(b.coat_normal, t, bitangent);
    s.wi = from_local(i, t, bitangent, b.coat_normal);
    if (i.z <= 0.0 || s.wi.z <= 0.0) {
        return false;
    }
    if (smooth_coat) {
        s.delta = true;
        s.weight = vec3(b.clearcoat * coat_fresnel(b, wo) / p_coat);
        return true;
    }
    return weigh_sample(b, wo, entering, s);
}

// Samples wi from wo with u in [0,1)^3: u.z picks the coat or the base's lobe (and,
// rescaled, glass's reflection or refraction), u.xy the direction. False when no direction
// comes out.
bool bsdf_sample(Bsdf b, vec3 wo, bool entering, vec3 u, out BsdfSample s) {
    float p_coat = 0.0;
    if (has_coat(b) && wo.z > 0.0) {
        p_coat = coat_probability(b, wo);
        if (u.z < p_coat) {
            return coat_sample(b, wo, entering, u.xy, p_coat, s);
        }
        u.z = (u.z - p_coat) / (1.0 - p_coat);
    }
    bool sampled = base_sample(b, wo, entering, u, s);
    if (sampled && s.delta && p_coat > 0.0) {
        // The base's delta lobes are weighed here; base_sample's other directions by bsdf_eval.
        s.weight *= coat_transmittance(b, wo, s.wi) / (1.0 - p_coat);
    }
    return sampled;
}

#endif
