"""The generated kjudge.v1 stubs (kjudge_pb2, kjudge_pb2_grpc), made from proto/ when the package is built."""
