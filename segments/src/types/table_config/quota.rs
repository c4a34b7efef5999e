//! `quota` (`QuotaConfig.java`): a table's storage quota per replica (`"10G"`) and the queries
//! per second its brokers admit together (`"100"`). Both are checked when the config is read,
//! with Pinot's messages, and written back normalised as Pinot writes them: the size in its
//! largest whole-ish unit (`"10GB"` → `"10G"`, `"1024M"` → `"1G"`), the rate as a Java double
//! (`"100"` → `"100.0"`).

use super::coerce;
use super::data_size::{data_size_bytes, format_data_size};
use serde::{Deserialize, Deserializer, Serialize};

/// A table's quotas.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaConfig {
    /// Normalised size text (`"10G"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<String>,
    /// Normalised rate text (`"100.0"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_queries_per_second: Option<String>,
}

impl QuotaConfig {
    /// The storage quota per replica in bytes.
    pub fn storage_bytes(&self) -> Option<u64> {
        data_size_bytes(self.storage.as_deref()?)
    }

    /// The queries per second the table's brokers admit together.
    pub fn max_qps(&self) -> Option<f64> {
        self.max_queries_per_second.as_deref()?.parse().ok()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct QuotaJson {
    #[serde(default, deserialize_with = "coerce::opt_string")]
    storage: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    max_queries_per_second: Option<String>,
}

impl<'de> Deserialize<'de> for QuotaConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<QuotaConfig, D::Error> {
        let j = QuotaJson::deserialize(d)?;
        let storage = match j.storage {
            None => None,
            Some(s) => Some(
                data_size_bytes(&s)
                    .map(format_data_size)
                    .ok_or_else(|| serde::de::Error::custom(format!("Invalid 'storage': {s}")))?,
            ),
        };
        let max_queries_per_second = match j.max_queries_per_second {
            None => None,
            Some(s) => {
                let qps: f64 = s
                    .trim()
                    .parse()
                    .ok()
                    .filter(|q: &f64| q.is_finite() && *q > 0.0)
                    .ok_or_else(|| {
                        serde::de::Error::custom(format!("Invalid 'maxQueriesPerSecond': {s}"))
                    })?;
                Some(crate::types::java_text::java_double_text(qps))
            }
        };
        Ok(QuotaConfig {
            storage,
            max_queries_per_second,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_quota_is_checked_and_normalised() {
        let q: QuotaConfig =
            serde_json::from_value(json!({"storage": "1024M", "maxQueriesPerSecond": 100}))
                .unwrap();
        assert_eq!(q.storage.as_deref(), Some("1G"));
        assert_eq!(q.storage_bytes(), Some(1 << 30));
        assert_eq!(q.max_qps(), Some(100.0));
        assert_eq!(
            serde_json::to_value(&q).unwrap(),
            json!({"storage": "1G", "maxQueriesPerSecond": "100.0"})
        );
        let e = serde_json::from_value::<QuotaConfig>(json!({"storage": "lots"})).unwrap_err();
        assert!(e.to_string().contains("Invalid 'storage': lots"), "{e}");
        let e =
            serde_json::from_value::<QuotaConfig>(json!({"maxQueriesPerSecond": "0"})).unwrap_err();
        assert!(
            e.to_string().contains("Invalid 'maxQueriesPerSecond': 0"),
            "{e}"
        );
    }
}
