//! The glTF metallic-roughness BSDF on the CPU: the twin of `shaders-glsl/include/bsdf.glsl`,
//! line for line in f32, so that tests can hold the shader to it on the GPU and check the
//! math itself (densities, sampling, reciprocity, energy) where it is easy to integrate.
//! The model and its conventions are described in bsdf.glsl.

use glam::{Vec2, Vec3, Vec4};

use std::f32::consts::PI;

use crate::interface::CLEARCOAT_F0;
pub use crate::interface::DELTA_ALPHA;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bsdf {
    pub base_color: Vec3,
    pub metallic: f32,
    pub specular_color: Vec3,
    pub specular: f32,
    /// GGX alpha: roughness squared.
    pub alpha: f32,
    pub transmission: f32,
    pub ior: f32,
    /// KHR_materials_clearcoat's weight (0: no coat).
    pub clearcoat: f32,
    /// The coat's GGX alpha.
    pub coat_alpha: f32,
    /// The coat's normal in the local frame (unit, z > 0).
    pub coat_normal: Vec3,
}

impl Bsdf {
    /// The BSDF of a material's factors (the shaders' `surface_bsdf` without textures or vertex
    /// colours), its coat's normal the shading normal's.
    pub fn of(material: &crate::scene::Material) -> Self {
        Self {
            base_color: material.base_color.truncate(),
            metallic: material.metallic,
            specular_color: material.specular_color,
            specular: material.specular,
            alpha: material.roughness * material.roughness,
            transmission: material.transmission,
            ior: material.ior,
            clearcoat: material.clearcoat,
            coat_alpha: material.clearcoat_roughness * material.clearcoat_roughness,
            coat_normal: Vec3::Z,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BsdfSample {
    pub wi: Vec3,
    /// f x |cos theta_i| / pdf.
    pub weight: Vec3,
    /// 0 for a delta lobe.
    pub pdf: f32,
    pub transmitted: bool,
    pub delta: bool,
}

fn max3(v: Vec3) -> f32 {
    v.max_element()
}

fn luminance(rgb: Vec3) -> f32 {
    rgb.dot(Vec3::new(0.2126, 0.7152, 0.0722))
}

pub fn sample_cosine_local(u: Vec2) -> Vec3 {
    let r = u.x.sqrt();
    let phi = 2.0 * PI * u.y;
    Vec3::new(r * phi.cos(), r * phi.sin(), (1.0 - u.x).max(0.0).sqrt())
}

/// Unpolarised Fresnel reflectance; eta = n_incident / n_transmitted.
pub fn fresnel_dielectric(cos_i: f32, eta: f32) -> f32 {
    let sin2_t = eta * eta * (1.0 - cos_i * cos_i).max(0.0);
    if sin2_t >= 1.0 {
        return 1.0;
    }
    let cos_t = (1.0 - sin2_t).sqrt();
    let rs = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    let rp = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    0.5 * (rs * rs + rp * rp)
}

pub fn fresnel_schlick(f0: Vec3, cos_theta: f32) -> Vec3 {
    let m = (1.0 - cos_theta).clamp(0.0, 1.0);
    let m2 = m * m;
    f0 + (Vec3::ONE - f0) * (m2 * m2 * m)
}

pub fn ggx_d(h: Vec3, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = h.z * h.z * (a2 - 1.0) + 1.0;
    a2 / (PI * d * d)
}

fn ggx_lambda(w: Vec3, alpha: f32) -> f32 {
    let c2 = w.z * w.z;
    let tan2 = (1.0 - c2).max(0.0) / c2.max(1e-12);
    0.5 * ((1.0 + alpha * alpha * tan2).sqrt() - 1.0)
}

pub fn ggx_g1(w: Vec3, alpha: f32) -> f32 {
    1.0 / (1.0 + ggx_lambda(w, alpha))
}

pub fn ggx_g2(wo: Vec3, wi: Vec3, alpha: f32) -> f32 {
    1.0 / (1.0 + ggx_lambda(wo, alpha) + ggx_lambda(wi, alpha))
}

/// Heitz 2018's visible-normal sampling (wo.z > 0).
pub fn ggx_sample_visible(wo: Vec3, alpha: f32, u: Vec2) -> Vec3 {
    let vh = Vec3::new(alpha * wo.x, alpha * wo.y, wo.z).normalize();
    let lensq = vh.x * vh.x + vh.y * vh.y;
    let t1 = if lensq > 0.0 {
        Vec3::new(-vh.y, vh.x, 0.0) / lensq.sqrt()
    } else {
        Vec3::X
    };
    let t2 = vh.cross(t1);
    let r = u.x.sqrt();
    let phi = 2.0 * PI * u.y;
    let p1 = r * phi.cos();
    let mut p2 = r * phi.sin();
    let s = 0.5 * (1.0 + vh.z);
    p2 = (1.0 - s) * (1.0 - p1 * p1).max(0.0).sqrt() + s * p2;
    let nh = p1 * t1 + p2 * t2 + (1.0 - p1 * p1 - p2 * p2).max(0.0).sqrt() * vh;
    Vec3::new(alpha * nh.x, alpha * nh.y, nh.z.max(1e-7)).normalize()
}

fn reflect(i: Vec3, n: Vec3) -> Vec3 {
    i - 2.0 * n.dot(i) * n
}

/// GLSL's refract: zero on total internal reflection.
fn refract(i: Vec3, n: Vec3, eta: f32) -> Vec3 {
    let d = n.dot(i);
    let k = 1.0 - eta * eta * (1.0 - d * d);
    if k < 0.0 {
        Vec3::ZERO
    } else {
        eta * i - (eta * d + k.sqrt()) * n
    }
}

impl Bsdf {
    fn dielectric_f0(&self) -> Vec3 {
        let r = (self.ior - 1.0) / (self.ior + 1.0);
        (Vec3::splat(r * r) * self.specular_color).min(Vec3::ONE)
    }

    fn glass_tint(&self) -> Vec3 {
        let r = (self.ior - 1.0) / (self.ior + 1.0);
        self.specular_color.min(Vec3::splat(1.0 / (r * r).max(1e-6)))
    }

    pub fn is_smooth(&self) -> bool {
        self.alpha < DELTA_ALPHA
    }

    /// The metal lobe's Fresnel: Schlick's where the lobe is rough, baseColor at every angle
    /// where it is smooth (REFERENCE.md's perfect mirror).
    pub fn metal_fresnel(&self, cos_theta: f32) -> Vec3 {
        if self.is_smooth() {
            self.base_color
        } else {
            fresnel_schlick(self.base_color, cos_theta)
        }
    }

    pub fn has_density(&self) -> bool {
        let opaque = self.metallic < 1.0 && self.transmission < 1.0;
        let rough_coat = self.clearcoat > 0.0 && self.coat_alpha >= DELTA_ALPHA;
        !self.is_smooth() || (opaque && max3(self.base_color) > 0.0) || rough_coat
    }

    /// Estimates of what the base's metal, specular layer, diffuse base and glass lobes
    /// reflect from wo.
    fn lobe_weights(&self, cos_o: f32) -> Vec4 {
        let dielectric = 1.0 - self.metallic;
        let opaque = dielectric * (1.0 - self.transmission);
        let layer = self.specular * max3(fresnel_schlick(self.dielectric_f0(), cos_o));
        let w = Vec4::new(
            self.metallic * luminance(self.metal_fresnel(cos_o)),
            opaque * layer,
            opaque * (1.0 - layer) * luminance(self.base_color),
            dielectric * self.transmission,
        );
        w.max(
            Vec4::new(
                self.metallic,
                opaque * self.specular,
                opaque * max3(self.base_color),
                0.0,
            ) * 1e-3,
        )
    }

    /// Chances of the base's metal, specular layer, diffuse base and glass lobes from wo.
    pub fn lobe_probabilities(&self, cos_o: f32) -> Vec4 {
        let w = self.lobe_weights(cos_o);
        let total = w.x + w.y + w.z + w.w;
        if total > 0.0 {
            w / total
        } else {
            Vec4::ZERO
        }
    }

    fn refraction_eta(&self, entering: bool) -> f32 {
        if entering {
            self.ior
        } else {
            1.0 / self.ior
        }
    }

    /// f x |cos theta_i| of the base's non-delta lobes, and base_sample's density at wi.
    fn base_eval(&self, wo: Vec3, wi: Vec3, entering: bool) -> (Vec3, f32) {
        if wo.z <= 0.0 || wi.z == 0.0 {
            return (Vec3::ZERO, 0.0);
        }
        let p = self.lobe_probabilities(wo.z);
        let smooth = self.is_smooth();
        let dielectric = 1.0 - self.metallic;
        let opaque = dielectric * (1.0 - self.transmission);
        let alpha = self.alpha;
        if wi.z > 0.0 {
            let h = (wo + wi).normalize();
            let cos_h = wo.dot(h).max(0.0);
            let layer = self.specular * fresnel_schlick(self.dielectric_f0(), cos_h);
            let mut f = opaque * (1.0 - max3(layer)) * self.base_color * (wi.z / PI);
            let mut pdf = p.z * wi.z / PI;
            if !smooth {
                let microfacet = ggx_d(h, alpha) * ggx_g2(wo, wi, alpha) / (4.0 * wo.z);
                let reflected = if wo.dot(h) > 0.0 {
                    ggx_g1(wo, alpha) * ggx_d(h, alpha) / (4.0 * wo.z)
                } else {
                    0.0
                };
                let glass_fresnel = self.specular * fresnel_dielectric(cos_h, 1.0 / self.refraction_eta(entering));
                f += microfacet
                    * (self.metallic * self.metal_fresnel(cos_h)
                        + opaque * layer
                        + dielectric * self.transmission * glass_fresnel * self.glass_tint());
                pdf += reflected * (p.x + p.y + p.w * glass_fresnel);
            }
            return (f, pdf);
        }
        if smooth || self.transmission <= 0.0 || dielectric <= 0.0 {
            return (Vec3::ZERO, 0.0);
        }
        let eta = self.refraction_eta(entering);
        let mut h = (wo + wi * eta).normalize();
        if h.z < 0.0 {
            h = -h;
        }
        let cos_o = wo.dot(h);
        let cos_i = wi.dot(h);
        if cos_o <= 0.0 || cos_i >= 0.0 {
            return (Vec3::ZERO, 0.0);
        }
        let fresnel = fresnel_dielectric(cos_o, 1.0 / eta);
        // Past the critical angle nothing refracts, whatever KHR_materials_specular leaves over.
        let transmitted = if fresnel < 1.0 {
            1.0 - self.specular * fresnel
        } else {
            0.0
        };
        let mut denominator = cos_i + cos_o / eta;
        denominator *= denominator;
        let jacobian = cos_i.abs() / denominator;
        let d = ggx_d(h, alpha);
        let pdf = p.w * transmitted * ggx_g1(wo, alpha) * d * cos_o / wo.z * jacobian;
        let f = d * ggx_g2(wo, wi, alpha) * transmitted * cos_o * jacobian / wo.z / (eta * eta);
        (dielectric * self.transmission * self.base_color * f, pdf)
    }

    /// Samples wi from the base's lobes (whose weight and density, where wi is not a delta
    /// lobe's, are the whole BSDF's).
    fn base_sample(&self, wo: Vec3, entering: bool, u: Vec3) -> Option<BsdfSample> {
        if wo.z <= 0.0 {
            return None;
        }
        let p = self.lobe_probabilities(wo.z);
        if p == Vec4::ZERO {
            return None;
        }
        let smooth = self.is_smooth();
        let dielectric = 1.0 - self.metallic;
        let mut s = BsdfSample {
            wi: Vec3::Z,
            weight: Vec3::ZERO,
            pdf: 0.0,
            transmitted: false,
            delta: false,
        };
        // As the GPU has it: past the probabilities' rounded sum, u.z never picks a lobe of
        // probability 0.
        let only_base = p.x + p.y + p.w <= 0.0;
        if only_base || u.z < p.z {
            s.wi = sample_cosine_local(Vec2::new(u.x, u.y));
        } else {
            let h = if smooth {
                Vec3::Z
            } else {
                ggx_sample_visible(wo, self.alpha, Vec2::new(u.x, u.y))
            };
            let cos_h = wo.dot(h);
            if cos_h <= 0.0 {
                return None;
            }
            let reflected = reflect(-wo, h);
            let glass_start = p.z + p.x + p.y;
            if p.w > 0.0 && u.z >= glass_start {
                let eta = self.refraction_eta(entering);
                let reflectance = self.specular * fresnel_dielectric(cos_h, 1.0 / eta);
                let v = (u.z - glass_start) / p.w;
                if v < reflectance {
                    s.wi = reflected;
                    if smooth {
                        s.weight = dielectric * self.transmission * self.glass_tint() / p.w;
                    }
                } else {
                    s.wi = refract(-wo, h, 1.0 / eta);
                    s.transmitted = true;
                    if s.wi == Vec3::ZERO {
                        return None;
                    }
                    if smooth {
                        s.weight = dielectric * self.transmission * self.base_color / (p.w * eta * eta);
                    }
                }
            } else {
                s.wi = reflected;
                if smooth {
                    s.weight = if u.z < p.z + p.x || p.y <= 0.0 {
                        self.metallic * self.metal_fresnel(cos_h) / p.x
                    } else {
                        dielectric
                            * (1.0 - self.transmission)
                            * self.specular
                            * fresnel_schlick(self.dielectric_f0(), cos_h)
                            / p.y
                    };
                }
            }
            if smooth {
                s.delta = true;
                let ok = if s.transmitted { s.wi.z < 0.0 } else { s.wi.z > 0.0 };
                return ok.then_some(s);
            }
        }
        if if s.transmitted { s.wi.z >= 0.0 } else { s.wi.z <= 0.0 } {
            return None;
        }
        let (f, pdf) = self.eval(wo, s.wi, entering);
        if pdf.is_nan() || pdf <= 0.0 {
            return None;
        }
        s.pdf = pdf;
        s.weight = f / pdf;
        Some(s)
    }
}

impl Bsdf {
    fn has_coat(&self) -> bool {
        self.clearcoat > 0.0
    }

    /// The coat's Fresnel reflectance along w (from |w . coat normal|).
    pub fn coat_fresnel(&self, w: Vec3) -> f32 {
        fresnel_schlick(Vec3::splat(CLEARCOAT_F0), w.dot(self.coat_normal).abs()).x
    }

    /// What of the base the coat lets through, on the way in and on the way out.
    pub fn coat_transmittance(&self, wo: Vec3, wi: Vec3) -> f32 {
        (1.0 - self.clearcoat * self.coat_fresnel(wo)) * (1.0 - self.clearcoat * self.coat_fresnel(wi))
    }

    /// The chance of sampling the coat from wo.
    pub fn coat_probability(&self, wo: Vec3) -> f32 {
        let w = self.lobe_weights(wo.z);
        let coat = self.clearcoat * self.coat_fresnel(wo);
        let total = coat + (1.0 - coat) * (w.x + w.y + w.z + w.w);
        if total > 0.0 {
            coat / total
        } else {
            0.0
        }
    }

    /// The tangents of the coat's frame, whose z is the coat's normal.
    fn coat_frame(&self) -> (Vec3, Vec3) {
        basis(self.coat_normal)
    }

    /// The rough coat's f x |cos theta_i| and coat sampling's density at wi.
    fn coat_eval(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let (t, b) = self.coat_frame();
        let n = self.coat_normal;
        let o = Vec3::new(wo.dot(t), wo.dot(b), wo.dot(n));
        let i = Vec3::new(wi.dot(t), wi.dot(b), wi.dot(n));
        if o.z <= 0.0 || i.z <= 0.0 || self.coat_alpha < DELTA_ALPHA {
            return (Vec3::ZERO, 0.0);
        }
        let h = (o + i).normalize();
        let d = ggx_d(h, self.coat_alpha);
        let fresnel = fresnel_schlick(Vec3::splat(CLEARCOAT_F0), o.dot(h)).x;
        let pdf = ggx_g1(o, self.coat_alpha) * d / (4.0 * o.z);
        let f = self.clearcoat * fresnel * d * ggx_g2(o, i, self.coat_alpha) / (4.0 * o.z * i.z) * wi.z.abs();
        (Vec3::splat(f), pdf)
    }

    /// f x |cos theta_i| of the non-delta lobes, and the sampling density at wi.
    pub fn eval(&self, wo: Vec3, wi: Vec3, entering: bool) -> (Vec3, f32) {
        let (f, pdf) = self.base_eval(wo, wi, entering);
        if !self.has_coat() || wo.z <= 0.0 {
            return (f, pdf);
        }
        let p_coat = self.coat_probability(wo);
        let (coat, coat_pdf) = self.coat_eval(wo, wi);
        (
            coat + self.coat_transmittance(wo, wi) * f,
            p_coat * coat_pdf + (1.0 - p_coat) * pdf,
        )
    }

    fn coat_sample(&self, wo: Vec3, entering: bool, u: Vec2, p_coat: f32) -> Option<BsdfSample> {
        let (t, b) = self.coat_frame();
        let n = self.coat_normal;
        let o = Vec3::new(wo.dot(t), wo.dot(b), wo.dot(n));
        if o.z <= 0.0 {
            return None;
        }
        let smooth = self.coat_alpha < DELTA_ALPHA;
        let h = if smooth {
            Vec3::Z
        } else {
            ggx_sample_visible(o, self.coat_alpha, u)
        };
        let i = reflect(-o, h);
        let wi = t * i.x + b * i.y + n * i.z;
        if i.z <= 0.0 || wi.z <= 0.0 {
            return None;
        }
        if smooth {
            return Some(BsdfSample {
                wi,
                weight: Vec3::splat(self.clearcoat * self.coat_fresnel(wo) / p_coat),
                pdf: 0.0,
                transmitted: false,
                delta: true,
            });
        }
        let (f, pdf) = self.eval(wo, wi, entering);
        if pdf.is_nan() || pdf <= 0.0 {
            return None;
        }
        Some(BsdfSample {
            wi,
            weight: f / pdf,
            pdf,
            transmitted: false,
            delta: false,
        })
    }

    /// Samples wi from wo with u in [0,1)^3 (u.z picks the coat or the base's lobe).
    pub fn sample(&self, wo: Vec3, entering: bool, mut u: Vec3) -> Option<BsdfSample> {
        let mut p_coat = 0.0;
        if self.has_coat() && wo.z > 0.0 {
            p_coat = self.coat_probability(wo);
            if u.z < p_coat {
                return self.coat_sample(wo, entering, Vec2::new(u.x, u.y), p_coat);
            }
            u.z = (u.z - p_coat) / (1.0 - p_coat);
        }
        let mut s = self.base_sample(wo, entering, u)?;
        if s.delta && p_coat > 0.0 {
            s.weight *= self.coat_transmittance(wo, s.wi) / (1.0 - p_coat);
        }
        Some(s)
    }
}

/// An orthonormal basis around the unit vector n (bsdf.glsl's `basis`: Duff et al. 2017).
fn basis(n: Vec3) -> (Vec3, Vec3) {
    let s = if n.z >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (s + n.z);
    let c = n.x * n.y * a;
    (
        Vec3::new(1.0 + s * n.x * n.x * a, s * c, -s * n.x),
        Vec3::new(c, s + n.y * n.y * a, -n.y),
    )
}

/// Single-scattering GGX directional albedo of a white metal (F = 1) at cos theta_o `mu`:
/// the integral of D G2 / (4 cos_o) over the hemisphere, by visible-normal sampling on a
/// stratified grid (`n` x `n` samples). What a furnace can at most give back at that angle.
pub fn ggx_directional_albedo(mu: f32, alpha: f32, n: u32) -> f64 {
    let wo = Vec3::new((1.0 - mu * mu).max(0.0).sqrt(), 0.0, mu);
    let mut sum = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let u = Vec2::new((i as f32 + 0.5) / n as f32, (j as f32 + 0.5) / n as f32);
            let h = ggx_sample_visible(wo, alpha, u);
            let wi = reflect(-wo, h);
            if wi.z > 0.0 {
                // weight = G2 / G1(wo) for VNDF sampling with F = 1.
                sum += f64::from(ggx_g2(wo, wi, alpha) / ggx_g1(wo, alpha));
            }
        }
    }
    sum / f64::from(n * n)
}
