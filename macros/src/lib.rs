//! `#[entry(CONV)]`: turns the body of an exported verb into its C entry shim
//! (trace check, panic boundary, return convention), so that the signature,
//! which cbindgen reads, is the only place its arguments are written.
//!
//! CONV is `errno` (body: `Result<()>`), `minus_one` (`Result<c_int>`),
//! `neg_errno` (`Result<isize>`), `ptr` (`Result<*mut T>` or `Result<*const T>`) or
//! `value(FALLBACK)` (the value itself; FALLBACK if the body panics). An
//! optional `name = IDENT` names the call in trace lines (default: the fn's).
//! An optional `untraced = IDENT` also defines IDENT, the same verb without
//! the trace check (for op slots a context fills once it knows tracing is
//! off: the data path then loads no global per call).
//! Trace lines show every parameter but those named `_` or `_x`.
//! The expansion calls `crate::entry::{run, run_traced, ret_*}`: the macro is
//! for the ibverbs crate only.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Error, Expr, FnArg, Ident, ItemFn, Pat, Token, parse_macro_input};

/// The return convention and its panic value.
struct Args {
    conv: Ident,
    panic: Tokens,
    name: Option<Ident>,
    untraced: Option<Ident>,
}

const CONVS: &str = "expected `errno`, `minus_one`, `neg_errno`, `ptr` or `value(FALLBACK)`";

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(Error::new(Span::call_site(), format!("#[entry]: {CONVS}")));
        }
        let kind: Ident = input.parse()?;
        let err = quote!(Err(crate::entry::PANIC_ERRNO));
        let (conv, panic) = match kind.to_string().as_str() {
            "errno" => ("ret_errno", err),
            "minus_one" => ("ret_minus_one", err),
            "neg_errno" => ("ret_neg_errno", err),
            "ptr" => ("ret_ptr", err),
            "value" => {
                let inner;
                syn::parenthesized!(inner in input);
                let fallback: Expr = inner.parse()?;
                ("ret_value", quote!(#fallback))
            }
            _ => return Err(Error::new(kind.span(), CONVS)),
        };
        let (mut name, mut untraced) = (None, None);
        while input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            let key: Ident = input.parse()?;
            let slot = match key.to_string().as_str() {
                "name" => &mut name,
                "untraced" => &mut untraced,
                _ => {
                    return Err(Error::new(
                        key.span(),
                        "expected `name = IDENT` or `untraced = IDENT`",
                    ));
                }
            };
            input.parse::<Token![=]>()?;
            *slot = Some(input.parse()?);
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the convention"));
        }
        Ok(Args {
            conv: Ident::new(conv, kind.span()),
            panic,
            name,
            untraced,
        })
    }
}

#[proc_macro_attribute]
pub fn entry(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = parse_macro_input!(attr as Args);
    let func = parse_macro_input!(item as ItemFn);
    expand(args, func)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn expand(args: Args, func: ItemFn) -> syn::Result<Tokens> {
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = func;
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span, "#[entry] verbs cannot be async"));
    }
    let mut names = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Typed(t) => match &*t.pat {
                // `_x`, a parameter the verb ignores, is not traced either.
                Pat::Ident(p) if p.ident.to_string().starts_with('_') => {}
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    names.push(p.ident.clone())
                }
                // `_: T` has no name to trace; anything else is unusual in a C shim.
                Pat::Wild(_) => {}
                other => {
                    return Err(Error::new_spanned(
                        other,
                        "#[entry]: parameters must be plain names (or `_`)",
                    ));
                }
            },
            FnArg::Receiver(r) => {
                return Err(Error::new_spanned(r, "#[entry] is for free functions"));
            }
        }
    }
    let Args {
        conv,
        panic,
        name,
        untraced,
    } = args;
    let name = name.unwrap_or_else(|| sig.ident.clone()).to_string();
    let labels = names.iter().map(|n| n.to_string());
    // The untraced twin: the same body behind the panic boundary only.
    let twin = untraced.map(|id| {
        let syn::Signature {
            constness,
            unsafety,
            abi,
            generics,
            inputs,
            output,
            ..
        } = &sig;
        let wc = &generics.where_clause;
        quote! {
            #(#attrs)*
            #vis #constness #unsafety #abi fn #id #generics (#inputs) #output #wc {
                #[allow(unused_unsafe, clippy::redundant_closure_call)]
                crate::entry::run(
                    #name,
                    || crate::entry::#conv((|| #block)()),
                    || crate::entry::#conv(#panic),
                )
            }
        }
    });
    // The body is expanded twice so that the untraced path captures nothing
    // for the traced one.
    Ok(quote! {
        #(#attrs)*
        #vis #sig {
            if crate::entry::trace_level() == 0 {
                #[allow(unused_unsafe, clippy::redundant_closure_call)]
                crate::entry::run(
                    #name,
                    || crate::entry::#conv((|| #block)()),
                    || crate::entry::#conv(#panic),
                )
            } else {
                // Out of line, on copies of the arguments: taking their
                // addresses here would keep them in memory on the fast path.
                #[allow(unused_unsafe, clippy::redundant_closure_call)]
                crate::entry::cold(move || crate::entry::run_traced(
                    crate::entry::Call(
                        #name,
                        &[#((#labels, &#names as &dyn ::core::fmt::Debug)),*],
                    ),
                    || crate::entry::#conv((|| #block)()),
                    || crate::entry::#conv(#panic),
                ))
            }
        }
        #twin
    })
}
