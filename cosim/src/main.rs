fn main() {
    std::process::exit(tpb_cosim::cli::main());
}
