from kafkactl.cli import main

main()
