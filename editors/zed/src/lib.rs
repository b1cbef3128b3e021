//! Zed extension glue for `mutiny lsp`: Zed only starts language servers
//! that an extension declares, so this declares `mutiny` for Rust and
//! tells Zed how to start it and what settings to send.

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId};

struct Mutiny;

impl Mutiny {
    fn lsp_settings(id: &LanguageServerId, worktree: &zed::Worktree) -> LspSettings {
        LspSettings::for_worktree(id.as_ref(), worktree).unwrap_or_default()
    }

    /// The user's `lsp.mutiny.settings`, else its `initialization_options`:
    /// mutiny reads the same keys from both, so sending one value both ways
    /// keeps them in agreement.
    fn mutiny_settings(
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Option<serde_json::Value> {
        let settings = Self::lsp_settings(id, worktree);
        settings.settings.or(settings.initialization_options)
    }
}

impl zed::Extension for Mutiny {
    fn new() -> Self {
        Mutiny
    }

    fn language_server_command(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let binary = Self::lsp_settings(id, worktree).binary;
        let configured = binary.as_ref().and_then(|b| b.path.clone());
        let command = configured.or_else(|| worktree.which("mutiny")).ok_or_else(|| {
            "mutiny is not on the PATH Zed sees: install it (`cargo install --path server --locked` \
             in mutiny's repository) or set lsp.mutiny.binary.path in Zed's settings"
                .to_owned()
        })?;
        let args = binary
            .as_ref()
            .and_then(|b| b.arguments.clone())
            .unwrap_or_else(|| vec!["lsp".to_owned()]);
        let mut env = worktree.shell_env();
        if let Some(extra) = binary.and_then(|b| b.env) {
            env.extend(extra);
        }
        Ok(zed::Command { command, args, env })
    }

    fn language_server_initialization_options(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        Ok(Self::mutiny_settings(id, worktree))
    }

    fn language_server_workspace_configuration(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        Ok(Self::mutiny_settings(id, worktree))
    }
}

zed::register_extension!(Mutiny);
