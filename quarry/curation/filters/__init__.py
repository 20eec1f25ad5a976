"""Quality filters: datatrove-style Filter and Mapper bases and the rules the filters stage chains."""
